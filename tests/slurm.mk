# tests/slurm.mk - the Slurm tier: scripts/cluster.sh starts a real
# single-node cluster (munged, MariaDB, slurmdbd, slurmctld, slurmd) under a
# scratch directory; the tests skip (77) when not root or Slurm is absent.

if INTEGRATION_TESTS
TESTS += tests/integration/slurm-cluster.sh tests/integration/slurm-spank.sh
endif
EXTRA_DIST += tests/integration/slurm-lib.sh \
	tests/integration/slurm-cluster.sh tests/integration/slurm-spank.sh
