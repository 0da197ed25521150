// ink imports react-devtools-core only when DEV=true; the bundle ships without it.
export default { initialize() {}, connectToDevTools() {} };
