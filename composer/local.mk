# composer/local.mk - falconctl, the admin/user CLI: every part of lib/
# (topo: lib/pci, inventory: lib/chassis, falcond commands: lib/api).

bin_PROGRAMS += composer/falconctl
composer_falconctl_SOURCES = \
	composer/falconctl.c composer/falconctl.h \
	composer/falconctl_topo.c \
	composer/falconctl_inventory.c \
	composer/falconctl_falcond.c
composer_falconctl_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) \
	$(MUNGE_CFLAGS)
composer_falconctl_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_PCI) \
	$(LIBFALCON_CORE) $(JSON_LIBS)
dist_man_MANS += doc/falconctl.1
