// Which project a test file runs in (issue 19 item 4), in one place: vitest.config.ts reads
// it and test/house/projects.test.ts checks it. `unit` is every test file not listed here: no
// processes, no tmux, no built binary, no Slurm or ssh, no sleeps; `npm run test:unit` is the
// inner loop. `system` is this list: what starts a process (a fake or real agent, the CLI from
// dist/, tmux, sshd, Slurm's daemons, `runuser`, faketime) or waits on the clock. The comment
// on each row says what made it system. A new test file is `unit` unless it is added here,
// and test/house/projects.test.ts fails if a unit file imports a process or tmux helper.

export const SYSTEM_TESTS: readonly string[] = [
  'test/core/run/supervisor/adopt-restart.test.ts', // child process, agents, sleeps
  'test/core/run/supervisor/reset-escalated.test.ts', // agents
  'test/core/run/executors/sacct-gather.test.ts', // child process (a stand-in sacct on PATH)
  'test/core/redo/redo-live.test.ts', // child process (a writer holding a file open)
  'test/core/redo/redo-fork.test.ts', // agents
  'test/e2e/tmux/e2e-redo.test.ts', // child process, dist/, tmux
  'test/e2e/cli/redo-cli.test.ts', // child process, dist/
  'test/e2e/cli/act-socket.test.ts', // child process, process helper, dist/, agents, socket server
  'test/e2e/tmux/anchored-stdout.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/e2e-drain-tmux.test.ts', // child process, process helper, dist/, agents, tmux
  'test/e2e/tmux/e2e-act-tmux.test.ts', // child process, process helper, dist/, tmux
  'test/core/fs/atomic-write.test.ts', // child process
  'test/ui/slices/autopilot-redo.test.ts', // agents, sleeps
  'test/e2e/cli/backups-nonregular.test.ts', // child process, dist/
  'test/e2e/cli/backups.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/core/pipeline/bounds-caps.test.ts', // child process
  'test/e2e/cli/bounds-cli.test.ts', // child process, dist/
  'test/e2e/tmux/bounds-sweep.test.ts', // child process, process helper, dist/, tmux
  'test/e2e/cli/breaker-probe.test.ts', // child process, dist/, agents, sleeps
  'test/core/pipeline/caps-attempts.test.ts', // agents
  'test/core/run/supervisor/oom-ladder.test.ts', // agents (real processes under prlimit)
  'test/e2e/cli/secrets-grep.test.ts', // agents, Slurm, dist/
  'test/core/run/supervisor/slurm-oom-ladder.test.ts', // agents, Slurm
  'test/core/run/executors/kube-secrets.test.ts', // child process (kubectl offline)
  'test/ui/store/checkpoint-preview.test.ts', // child process, dist/
  'test/e2e/cli/checkpoint-unbatched.test.ts', // child process, dist/
  'test/e2e/cli/claude-e2e.test.ts', // child process, process helper, dist/
  'test/core/pipeline/claude-faults.test.ts', // process helper, agents
  'test/core/pipeline/claude-permissions.test.ts', // process helper, agents
  'test/cli/claude-run.test.ts', // process helper, agents
  'test/cli/cli-ascii.test.ts', // child process
  'test/e2e/cli/cli.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/e2e/cli/config-cache.test.ts', // child process, dist/
  'test/core/pipeline/continue-handoff.test.ts', // process helper, agents
  'test/e2e/cli/core-status.test.ts', // child process, dist/
  'test/e2e/cli/status-many.test.ts', // child process, dist/
  'test/ui/agents/cut-evidence-run.test.tsx', // child process, dist/, agents
  'test/e2e/tmux/e2e-agents.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e/tmux/e2e-ascii.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/e2e-claude-demo.test.ts', // child process, process helper, dist/, tmux, sleeps
  'test/e2e/tmux/e2e-first-frame.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/e2e-readonly.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/e2e-recover-quit.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e/tmux/e2e-signals.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/e2e-socket.test.ts', // child process, process helper, tmux, sleeps
  'test/e2e/tmux/e2e-tui.test.ts', // child process, process helper, tmux
  'test/e2e/tmux/many-hosts.test.ts', // child process, dist/, tmux, sshd in a network namespace
  'test/e2e/tmux/many-signals.test.ts', // child process, dist/, tmux
  'test/e2e/cli/explain-caps.test.ts', // child process, dist/
  'test/cli/external-writer-cli.test.ts', // child process, process helper
  'test/core/run/supervisor/external-writer-launch.test.ts', // child process, process helper, agents
  'test/core/pipeline/external-writer-retry.test.ts', // child process, process helper, agents, sleeps
  'test/ui/agents/external-writer.test.tsx', // child process, process helper
  'test/ui/components/marks.test.tsx', // child process, process helper
  'test/ui/marks/marks-agents.test.ts', // agents
  'test/e2e/tmux/e2e-marks.test.ts', // child process, tmux, dist/
  'test/e2e/cli/facts-cache.test.ts', // child process, dist/
  'test/core/pipeline/failure-message.test.ts', // agents
  'test/core/scan/fake-agent.test.ts', // child process
  'test/core/pipeline/gemini-jsonl.test.ts', // agents
  'test/e2e/cli/holders.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/core/run/executors/job-handle.test.ts', // sleeps
  'test/core/run/executors/slurm-accounting-off.test.ts', // Slurm's daemons, agents
  'test/core/run/executors/slurm-two-nodes.test.ts', // Slurm in network namespaces, MariaDB, slurmdbd, agents
  'test/core/run/executors/kubernetes.test.ts', // child process
  'test/core/run/executors/kube-indexed.test.ts', // child process
  'test/core/run/executors/slurm-arrays.test.ts', // child process, dist/, agents, faketime/runuser/Slurm
  'test/house/layers.test.ts', // child process
  'test/ui/store/live-port.test.ts', // agents, sleeps
  'test/ui/slices/live-writers.test.ts', // agents
  'test/core/live/live.test.ts', // sleeps
  'test/core/run/supervisor/lock.test.ts', // child process
  'test/matrix/matrix-drain.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/core/many/overview-watch.test.ts', // sleeps: inotify events and the read gap on the clock
  'test/matrix/matrix-budget.test.ts', // child process, process helper, dist/, agents, faketime/runuser/Slurm
  'test/matrix/matrix-hold.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/matrix/matrix-leave.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/matrix/matrix-probe.test.ts', // child process, process helper, dist/, agents, faketime/runuser/Slurm
  'test/core/pipeline/memory-guard.test.ts', // agents
  'test/e2e/cli/status-agrees.test.ts', // child process, dist/
  'test/e2e/tmux/paint-diff.test.ts', // child process, process helper, tmux, sleeps
  'test/core/run/attempt/placeholders.test.ts', // child process
  'test/core/run/process/process-kill.test.ts', // child process
  'test/core/run/process/process-proc.test.ts', // child process
  'test/core/run/process/process.test.ts', // child process (startProcess spawns sh through src/run/process/process.ts)
  'test/property/property-escalation.test.tsx', // agents, sleeps, socket server
  'test/property/property-observer.test.tsx', // agents, sleeps
  'test/core/pipeline/observer-news.test.ts', // a read-only supervisor over a journal (openSupervisor)
  'test/cli/status-runs.test.ts', // the CLI's status over a journal, its runs' liveness through src/
  'test/property/property-surfaces.test.tsx', // process helper
  'test/core/run/journal/recorded-run.test.ts', // child process
  'test/e2e/cli/recover-guard.test.ts', // child process, dist/
  'test/e2e/cli/restart-kill9.test.ts', // child process, dist/, agents, sleeps
  'test/e2e/cli/run-budget.test.ts', // child process, dist/, agents
  'test/cli/run-command.test.ts', // agents
  'test/core/run/process/run-output-lazy.test.ts', // sleeps
  'test/core/shutdown.test.ts', // child process, sleeps
  'test/house/seams.test.tsx', // registers fake adapter, executor and preset rows: module state a unit file sharing the thread would read
  'test/ui/agents/slurm-executor.test.tsx', // child process, process helper, agents, sleeps, faketime/runuser/Slurm
  'test/core/run/supervisor/slurm-faults.test.ts', // child process, process helper, agents, sleeps, faketime/runuser/Slurm
  'test/core/pipeline/slurm-leave-hold.test.ts', // child process, process helper, agents, sleeps
  'test/e2e/cli/slurm-restart.test.ts', // child process, process helper, dist/, agents, sleeps, faketime/runuser/Slurm
  'test/e2e/cli/slurm-submit-window.test.ts', // child process (killed -9 by an sbatch shim), dist/, real Slurm
  'test/ui/store/slurm-state.test.ts', // agents
  'test/core/socket/socket-handover.test.ts', // child process, process helper, sleeps, socket server
  'test/core/socket/socket-verdicts.test.ts', // socket server
  'test/core/socket/socket-watch.test.ts', // socket server
  'test/core/socket/socket-acts.test.ts', // socket server
  'test/core/socket/socket.test.ts', // child process, process helper, faketime/runuser/Slurm, socket server
  'test/core/sources/sources-level2.test.ts', // child process
  'test/ui/store/store-agents.test.ts', // agents, sleeps
  'test/ui/store/store-triage.test.ts', // agents
  'test/ui/store/store-redo-agents.test.ts', // a supervisor under the store (as store-agents.test.ts)
  'test/core/socket/supervisor.test.ts', // agents
  'test/e2e/cli/todos.test.ts', // child process, process helper, dist/, faketime/runuser/Slurm
  'test/ui/slices/concurrency-command.test.ts', // a supervisor under the store (as store-agents.test.ts)
  'test/ui/slices/store-quota.test.ts', // a supervisor under the store (as store-agents.test.ts)
  'test/core/run/quota/quota-waits.test.ts', // agents (a fake Claude Code), sleeps until a quota reset 3 s ahead
  'test/e2e/tmux/e2e-history-tmux.test.ts', // child process, dist/, tmux
  'test/cli/history-cli.test.ts', // child process, dist/
  'test/e2e/tmux/e2e-notify-tmux.test.ts', // child process, dist/, tmux, agents
  'test/core/notify/notify-alarms.test.ts', // agents, notifier processes, dist/
  'test/cli/logs-cli.test.ts', // child process, dist/
  'test/e2e/tmux/e2e-log-pager.test.ts', // child process, dist/, tmux
  'test/cli/cli-foresight.test.ts', // child process, dist/
  'test/core/bulk/select.test.ts', // process helper (a writer holding an output open)
  'test/core/run/supervisor/redrive-run.test.ts', // agents
  'test/cli/redrive-cli.test.ts', // child process, dist/, agents
  'test/ui/slices/store-redrive.test.ts', // a supervisor under the store (as store-quota.test.ts)
  'test/e2e/tmux/e2e-redrive-tmux.test.ts', // child process, dist/, tmux, agents
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
  'test/core/run/process/spawn-hangup.test.ts', // child process, agents, strace, sleeps
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
  'test/ui/components/triage-continuity.test.tsx', // agents
  'test/ui/agents/ui-agents.test.tsx', // agents, sleeps
  'test/ui/components/ui-backups-nonregular.test.tsx', // child process
  'test/ui/agents/ui-claude.test.tsx', // process helper, agents, sleeps
  'test/e2e/tmux/ui-glance-tmux.test.ts', // child process, process helper, tmux
  'test/ui/components/ui-glance.test.tsx', // agents
  'test/ui/agents/ui-handover.test.tsx', // agents, sleeps, socket server
  'test/ui/components/ui-journal-warnings.test.tsx', // agents
  'test/ui/agents/ui-live-writers.test.tsx', // agents
  'test/ui/agents/ui-observer.test.tsx', // agents, sleeps
  'test/ui/keys/ui-selection.test.tsx', // agents
  'test/ui/components/ui-small-terminal.test.tsx', // agents
  'test/e2e/cli/where-surfaces.test.ts', // child process, dist/
  'test/core/run/journal/writers-exclusion.test.ts', // agents
  'test/ui/agents/ui-needs-you.test.tsx', // agents
  'test/ui/agents/ui-log-follow.test.tsx', // child process (a writer appends to the log)
];
