/*
 * auth.h - munge request binding for the falcond API.
 *
 * Every request to falcond carries "Authorization: Munge <cred>".  The
 * credential's payload binds the request:
 *
 *     "falcon/1 <METHOD> <PATH> <sha256-hex of the body>"
 *
 * so a captured credential cannot be pointed at another method, route or
 * body, and munged's own TTL and replay checks (EMUNGE_CRED_EXPIRED,
 * EMUNGE_CRED_REPLAYED) stop it from being used twice or late.  The same
 * payload can be made in a shell: printf 'falcon/1 %s %s %s' POST
 * /v1/compose "$(printf %s "$body" | sha256sum | cut -d' ' -f1)" | munge -s.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_AUTH_H
#define FALCON_AUTH_H

#include <stddef.h>
#include <sys/types.h>

#include "core/falcon_err.h"

#define FALCON_AUTH_SCHEME "Munge"
#define FALCON_SHA256_HEX_LEN 65 /* 64 hex digits + NUL */

/*
 * falcon_sha256_hex - SHA-256 (FIPS 180-4, via OpenSSL's EVP) of len bytes
 * at data (NULL allowed when len is 0) as 64 lowercase hex digits into out.
 * Returns FALCON_ERR_INVAL if libcrypto fails.
 */
falcon_err_t falcon_sha256_hex(const void *data, size_t len,
			       char out[FALCON_SHA256_HEX_LEN]);

/*
 * falcon_auth_payload - the payload string binding method, path and body
 * (format above) into a new heap string (*out, caller frees).  method and
 * path must be non-empty and contain no blank or control character:
 * FALCON_ERR_INVAL otherwise.
 */
falcon_err_t falcon_auth_payload(const char *method, const char *path,
				 const void *body, size_t len, char **out);

/*
 * falcon_auth_sign - a munge credential (*cred, caller frees) for this
 * request.  socket: munged's socket (NULL = libmunge default); ttl_s: the
 * credential's time-to-live in seconds (0 = munged's default).
 * FALCON_ERR_MUNGE with munge_strerror() in the detail when munged fails.
 */
falcon_err_t falcon_auth_sign(const char *socket, int ttl_s, const char *method,
			      const char *path, const void *body, size_t len,
			      char **cred);

/*
 * falcon_auth_verify - decode cred with munged and check that its payload
 * binds exactly this method, path and body.  On success *uid / *gid are the
 * caller's (either may be NULL).  A missing, forged, expired, replayed or
 * rewound credential, or one made for another request, is FALCON_ERR_AUTH
 * (HTTP 401) with the reason in the detail; munged unreachable is
 * FALCON_ERR_MUNGE.  On FALCON_ERR_AUTH the uid is still stored when munged
 * told it (expired/replayed), else (uid_t)-1, for the log line.
 */
falcon_err_t falcon_auth_verify(const char *socket, const char *cred,
				const char *method, const char *path,
				const void *body, size_t len, uid_t *uid,
				gid_t *gid);

/*
 * falcon_auth_header_cred - the credential inside an Authorization header
 * value ("Munge <cred>", scheme case-insensitive, blanks around); a pointer
 * into value, or NULL when the value is NULL or not of that form.
 */
const char *falcon_auth_header_cred(const char *value);

#endif /* FALCON_AUTH_H */
