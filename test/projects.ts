// Which project a test file runs in (issue 19 item 4), in one place: vitest.config.ts reads
// it and test/projects.test.ts checks it. `unit` is every test file not listed here: no
// processes, no tmux, no built binary, no Slurm or ssh, no sleeps; `npm run test:unit` is the
// inner loop. `system` is this list: what starts a process (a fake or real agent, the CLI from
// dist/, tmux, sshd, Slurm's daemons, `runuser`, faketime) or waits on the clock. The comment
// on each row says what made it system. A new test file is `unit` unless it is added here,
// and test/projects.test.ts fails if a unit file imports a process or tmux helper.

export const SYSTEM_TESTS: readonly string[] = [
  'test/adopt-restart.test.ts', // child process, agents, sleeps
  'test/anchored-stdout.test.ts', // child process, process helper, tmux
  'test/atomic-write.test.ts', // child process
  'test/autopilot-redo.test.ts', // agents, sleeps
  'test/backups-nonregular.test.ts', // child process, dist/
  'test/backups.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/bounds-caps.test.ts', // child process
  'test/bounds-cli.test.ts', // child process, dist/
  'test/bounds-sweep.test.ts', // child process, process helper, dist/, tmux
  'test/breaker-probe.test.ts', // child process, dist/, agents, sleeps
  'test/caps-attempts.test.ts', // agents
  'test/checkpoint-preview.test.ts', // child process, dist/
  'test/checkpoint-unbatched.test.ts', // child process, dist/
  'test/claude-e2e.test.ts', // child process, process helper, dist/
  'test/claude-faults.test.ts', // process helper, agents
  'test/claude-permissions.test.ts', // process helper, agents
  'test/claude-run.test.ts', // process helper, agents
  'test/cli-ascii.test.ts', // child process
  'test/cli-foresight.test.ts', // child process, dist/
  'test/cli.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/config-cache.test.ts', // child process, dist/
  'test/continue-handoff.test.ts', // process helper, agents
  'test/core-status.test.ts', // child process, dist/
  'test/cut-evidence-run.test.tsx', // child process, dist/, agents
  'test/e2e-agents.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e-ascii.test.ts', // child process, process helper, tmux
  'test/e2e-claude-demo.test.ts', // child process, process helper, dist/, tmux, sleeps
  'test/e2e-first-frame.test.ts', // child process, process helper, tmux
  'test/e2e-readonly.test.ts', // child process, process helper, tmux
  'test/e2e-recover-quit.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e-signals.test.ts', // child process, process helper, tmux
  'test/e2e-socket.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e-tui.test.ts', // child process, process helper, tmux
  'test/explain-caps.test.ts', // child process, dist/
  'test/external-writer-cli.test.ts', // child process, process helper
  'test/external-writer-launch.test.ts', // child process, process helper, agents
  'test/external-writer-retry.test.ts', // child process, process helper, agents, sleeps
  'test/external-writer.test.tsx', // child process, process helper
  'test/facts-cache.test.ts', // child process, dist/
  'test/failure-message.test.ts', // agents
  'test/fake-agent.test.ts', // child process
  'test/gemini-jsonl.test.ts', // agents
  'test/holders.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/job-handle.test.ts', // sleeps
  'test/kubernetes.test.ts', // child process
  'test/layers.test.ts', // child process
  'test/live-port.test.ts', // agents, sleeps
  'test/live-writers.test.ts', // agents
  'test/live.test.ts', // sleeps
  'test/lock.test.ts', // child process
  'test/matrix-budget.test.ts', // child process, process helper, dist/, agents, faketime/runuser/Slurm
  'test/matrix-hold.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/matrix-leave.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/matrix-probe.test.ts', // child process, process helper, dist/, agents, faketime/runuser/Slurm
  'test/memory-guard.test.ts', // agents
  'test/operator/status-agrees.test.ts', // child process, dist/
  'test/paint-diff.test.ts', // child process, process helper, tmux, sleeps
  'test/placeholders.test.ts', // child process
  'test/process-kill.test.ts', // child process
  'test/process-proc.test.ts', // child process
  'test/process.test.ts', // child process (startProcess spawns sh through src/run/process.ts)
  'test/property-escalation.test.tsx', // agents, sleeps, socket server
  'test/property-observer.test.tsx', // agents, sleeps
  'test/observer-news.test.ts', // a read-only supervisor over a journal (openSupervisor)
  'test/status-runs.test.ts', // the CLI's status over a journal, its runs' liveness through src/
  'test/property-surfaces.test.tsx', // process helper
  'test/recorded-run.test.ts', // child process
  'test/recover-guard.test.ts', // child process, dist/
  'test/restart-kill9.test.ts', // child process, dist/, agents, sleeps
  'test/run-budget.test.ts', // child process, dist/, agents
  'test/run-command.test.ts', // agents
  'test/run-output-lazy.test.ts', // sleeps
  'test/shutdown.test.ts', // child process, sleeps
  'test/slurm-executor.test.tsx', // child process, process helper, agents, sleeps, faketime/runuser/Slurm
  'test/slurm-faults.test.ts', // child process, process helper, agents, sleeps, faketime/runuser/Slurm
  'test/slurm-leave-hold.test.ts', // child process, process helper, agents, sleeps
  'test/slurm-restart.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/slurm-state.test.ts', // agents
  'test/socket-handover.test.ts', // child process, process helper, sleeps, socket server
  'test/socket-verdicts.test.ts', // socket server
  'test/socket-watch.test.ts', // socket server
  'test/socket.test.ts', // child process, process helper, faketime/runuser/Slurm, socket server
  'test/sources-level2.test.ts', // child process
  'test/store-agents.test.ts', // agents, sleeps
  'test/store-triage.test.ts', // agents
  'test/supervisor.test.ts', // agents
  'test/todos.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/torture/adopt-leave.test.ts', // child process, agents, sleeps
  'test/torture/adopt-observer-tmux.test.ts', // child process, process helper, tmux
  'test/torture/adopt-takeover.test.ts', // child process, agents, sleeps
  'test/torture/adopt-tmux.test.ts', // child process, process helper, tmux, sleeps
  'test/torture/bounds-agents.test.ts', // child process, dist/, sleeps
  'test/torture/bounds-disk.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/torture/bounds-escapes.test.ts', // child process, dist/
  'test/torture/bounds-kill9.test.ts', // child process, dist/
  'test/torture/bounds-live.test.ts', // child process, dist/, sleeps
  'test/torture/bounds-tui-escapes.test.ts', // child process, process helper, tmux
  'test/torture/checkpoint-header-redos.test.ts', // child process
  'test/torture/confine-writes.test.ts', // child process, process helper, tmux
  'test/torture/countdown-tmux.test.ts', // child process, process helper, tmux, sleeps
  'test/torture/escape-every-output.test.ts', // child process, dist/
  'test/torture/handover-tmux.test.ts', // child process, process helper, tmux, sleeps
  'test/torture/keeper-kill9.test.ts', // child process, agents, sleeps
  'test/torture/orphans-setsid.test.ts', // child process, agents, sleeps
  'test/torture/patterns-redos.test.ts', // child process, process helper, tmux
  'test/torture/proc-escape.test.ts', // child process, sleeps
  'test/torture/proc-headless.test.ts', // child process, sleeps
  'test/torture/proc-parent-death.test.ts', // child process, process helper, tmux, agents, sleeps
  'test/torture/render-views.test.tsx', // agents, sleeps, faketime/runuser/Slurm
  'test/torture/scan-races.test.ts', // child process, process helper, dist/, sleeps, faketime/runuser/Slurm
  'test/torture/scan-sigterm.test.ts', // child process, process helper, tmux
  'test/torture/slurm-bounded-stop.test.ts', // child process, process helper, agents, sleeps
  'test/torture/slurm-controller-down.test.ts', // child process, process helper, agents, faketime/runuser/Slurm
  'test/torture/socket-forged-pointer.test.ts', // child process, process helper, tmux, sleeps, socket server
  'test/torture/ssh-drop.test.ts', // child process, process helper, tmux, sleeps
  'test/torture/takeover-autopilot.test.ts', // child process, agents, sleeps
  'test/torture/text-format-chars.test.ts', // child process, process helper, tmux
  'test/triage-continuity.test.tsx', // agents
  'test/ui-agents.test.tsx', // agents, sleeps
  'test/ui-backups-nonregular.test.tsx', // child process
  'test/ui-claude.test.tsx', // process helper, agents, sleeps
  'test/ui-glance-tmux.test.ts', // child process, process helper, tmux
  'test/ui-glance.test.tsx', // agents
  'test/ui-handover.test.tsx', // agents, sleeps, socket server
  'test/ui-journal-warnings.test.tsx', // agents
  'test/ui-live-writers.test.tsx', // agents
  'test/ui-observer.test.tsx', // agents, sleeps
  'test/ui-selection.test.tsx', // agents
  'test/ui-small-terminal.test.tsx', // agents
  'test/where-surfaces.test.ts', // child process, dist/
  'test/writers-exclusion.test.ts', // agents
];
