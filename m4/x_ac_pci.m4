# X_AC_PCI
# --------
# Find libpci (pciutils): pkg-config "libpci" first, then a link test of
# pci_alloc() against -lpci.  Sets PCI_CFLAGS and PCI_LIBS; fails if absent,
# since the PCIe topology is the core of every program.
AC_DEFUN([X_AC_PCI], [
  PKG_CHECK_MODULES([PCI], [libpci >= 3.6], [x_ac_pci=yes], [
    AC_CHECK_HEADER([pci/pci.h], [
      AC_CHECK_LIB([pci], [pci_alloc], [x_ac_pci=yes; PCI_LIBS=-lpci],
                   [x_ac_pci=no])], [x_ac_pci=no])])
  AS_IF([test "x$x_ac_pci" != xyes],
        [AC_MSG_ERROR([libpci not found: install libpci-dev (pciutils >= 3.6)])])
  AC_SUBST([PCI_CFLAGS])
  AC_SUBST([PCI_LIBS])
])
