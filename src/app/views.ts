// The control room's views, registered in one list: the number keys, Tab order, the
// `:name` commands and the tab bar all come from here. A later view (the launcher's
// Health view) is one more entry here plus one component in components/Views.tsx.

export type ViewId = 'progress' | 'partials' | 'plan' | 'sources' | 'health';

export interface ViewDef {
  id: ViewId;
  /** The number key that opens it. */
  key: string;
  title: string;
}

export const VIEWS: readonly ViewDef[] = [
  { id: 'progress', key: '1', title: 'Progress' },
  { id: 'partials', key: '2', title: 'Partials' },
  { id: 'plan', key: '3', title: 'Plan' },
  { id: 'sources', key: '4', title: 'Sources' },
  { id: 'health', key: '5', title: 'Health' },
];

export const nextView = (id: ViewId, step = 1): ViewId => {
  const i = VIEWS.findIndex((v) => v.id === id);
  return VIEWS[(i + step + VIEWS.length) % VIEWS.length].id;
};
