# tests/quickstart.mk - scripts/quickstart.sh run for real (the README's
# first command) under a scratch FALCON_DEMO_DIR: a full build and install,
# the whole cluster, two runs and --stop.  Root only; skips (77) otherwise.

if INTEGRATION_TESTS
TESTS += tests/integration/quickstart.sh
endif
EXTRA_DIST += tests/integration/quickstart.sh scripts/quickstart.sh \
	scripts/cluster.sh scripts/lib.sh scripts/install-deps.sh \
	examples/train.sh examples/falcon-demo.conf.in examples/falcon-keepwarm-reset
