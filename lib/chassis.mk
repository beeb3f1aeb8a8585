# lib/chassis.mk - the chassis client (Redfish over libcurl + json-c), its
# unit tests, the mockup fixture server, integration tests against DMTF's
# mockups and falcon-sim, the fuzzer and the benchmark.

lib_libfalcon_la_SOURCES += \
	lib/redfish.c lib/redfish.h \
	lib/chassis.c lib/chassis_backend.h \
	lib/rf_fabric.c lib/rf_composition.c
