# X_AC_CRYPTO
# -----------
# Find OpenSSL's libcrypto (for SHA-256 of request bodies): pkg-config
# "libcrypto" first, then a link test of EVP_Digest() against -lcrypto.
# Sets CRYPTO_CFLAGS and CRYPTO_LIBS.
AC_DEFUN([X_AC_CRYPTO], [
  PKG_CHECK_MODULES([CRYPTO], [libcrypto >= 1.1], [x_ac_crypto=yes], [
    AC_CHECK_HEADER([openssl/evp.h], [
      AC_CHECK_LIB([crypto], [EVP_Digest],
                   [x_ac_crypto=yes; CRYPTO_LIBS=-lcrypto], [x_ac_crypto=no])],
      [x_ac_crypto=no])])
  AS_IF([test "x$x_ac_crypto" != xyes],
        [AC_MSG_ERROR([libcrypto not found: install libssl-dev])])
  AC_SUBST([CRYPTO_CFLAGS])
  AC_SUBST([CRYPTO_LIBS])
])
