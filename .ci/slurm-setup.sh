#!/bin/sh
# Issue 12: a real one-node Slurm for test/slurm-*.test.ts. Installs Debian's slurm-wlm and
# munge when a binary is missing; the tests start their own daemons (test/helpers/slurm.ts)
# in temp dirs with a generated slurm.conf, so nothing here configures or starts a service.
# Issue 22: slurmdbd and mariadb-server for the two-node test's accounting
# (test/helpers/slurm-nodes.ts starts mariadbd in a temp datadir itself), iproute2 for its
# network namespaces.
set -eu
missing=0
for b in sbatch squeue scontrol scancel sacct slurmctld slurmd slurmdbd munged mariadbd mariadb-install-db ip nsenter; do
  command -v "$b" >/dev/null 2>&1 || missing=1
done
if [ "$missing" -eq 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm slurm-client slurmdbd munge mariadb-server iproute2 util-linux >/dev/null
fi
# sbatch --version would look for a cluster config; the package version says what is installed.
echo "slurm-wlm $(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null || echo '(not from a package)')"
