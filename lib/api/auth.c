/*
 * auth.c - munge request binding for the falcond API (see auth.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <munge.h>
#include <openssl/evp.h>

#include "api/auth.h"

falcon_err_t falcon_sha256_hex(const void *data, size_t len,
			       char out[FALCON_SHA256_HEX_LEN])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	unsigned int i;

	if (EVP_Digest(len ? data : "", len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32)
		return falcon_err_set(FALCON_ERR_INVAL, "sha256: EVP_Digest failed");
	for (i = 0; i < mdlen; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 0xf];
	}
	out[64] = '\0';
	return FALCON_OK;
}

static int token_ok(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 0;
	return 1;
}

falcon_err_t falcon_auth_payload(const char *method, const char *path,
				 const void *body, size_t len, char **out)
{
	char sha[FALCON_SHA256_HEX_LEN];
	falcon_err_t rv;
	char *p = NULL;

	if (!token_ok(method) || !token_ok(path))
		return falcon_err_set(FALCON_ERR_INVAL,
				      "auth payload: method and path must be non-empty words");
	rv = falcon_sha256_hex(body, len, sha);
	if (rv != FALCON_OK)
		return rv;
	if (asprintf(&p, "falcon/1 %s %s %s", method, path, sha) < 0)
		return falcon_err_set(FALCON_ERR_NOMEM, "auth payload: out of memory");
	*out = p;
	return FALCON_OK;
}

static falcon_err_t munge_ctx_for(const char *socket, int ttl_s, munge_ctx_t *out)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (ctx == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "munge_ctx_create failed");
	if (socket != NULL && *socket != '\0' &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return falcon_err_set(FALCON_ERR_MUNGE, "munge: cannot use socket %s", socket);
	}
	if (ttl_s > 0 && munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl_s) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return falcon_err_set(FALCON_ERR_MUNGE, "munge: cannot set ttl %d", ttl_s);
	}
	*out = ctx;
	return FALCON_OK;
}

falcon_err_t falcon_auth_sign(const char *socket, int ttl_s, const char *method,
			      const char *path, const void *body, size_t len,
			      char **cred)
{
	falcon_err_t rv;
	munge_ctx_t ctx = NULL;
	munge_err_t merr;
	char *payload = NULL;
	char *c = NULL;

	rv = falcon_auth_payload(method, path, body, len, &payload);
	if (rv != FALCON_OK)
		goto fail;
	rv = munge_ctx_for(socket, ttl_s, &ctx);
	if (rv != FALCON_OK)
		goto fail;
	merr = munge_encode(&c, ctx, payload, (int)strlen(payload));
	if (merr != EMUNGE_SUCCESS) {
		rv = falcon_err_set(FALCON_ERR_MUNGE, "munge_encode: %s",
				    munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
							    : munge_strerror(merr));
		goto fail;
	}
	*cred = c;
	c = NULL;
	rv = FALCON_OK;
fail:
	free(c);
	free(payload);
	if (ctx != NULL)
		munge_ctx_destroy(ctx);
	return rv;
}

falcon_err_t falcon_auth_verify(const char *socket, const char *cred,
				const char *method, const char *path,
				const void *body, size_t len, uid_t *uid,
				gid_t *gid)
{
	falcon_err_t rv;
	munge_ctx_t ctx = NULL;
	munge_err_t merr;
	void *got = NULL;
	int glen = 0;
	uid_t u = (uid_t)-1;
	gid_t g = (gid_t)-1;
	char *want = NULL;

	if (uid)
		*uid = (uid_t)-1;
	if (gid)
		*gid = (gid_t)-1;
	if (cred == NULL || *cred == '\0')
		return falcon_err_set(FALCON_ERR_AUTH, "no munge credential");
	rv = falcon_auth_payload(method, path, body, len, &want);
	if (rv != FALCON_OK)
		goto fail;
	rv = munge_ctx_for(socket, 0, &ctx);
	if (rv != FALCON_OK)
		goto fail;
	merr = munge_decode(cred, ctx, &got, &glen, &u, &g);
	switch (merr) {
	case EMUNGE_SUCCESS:
		break;
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
	case EMUNGE_NO_MEMORY:
	case EMUNGE_SNAFU:
		rv = falcon_err_set(FALCON_ERR_MUNGE, "munge_decode: %s",
				    munge_strerror(merr));
		goto fail;
	default:
		/* EMUNGE_CRED_EXPIRED/REPLAYED/REWOUND/INVALID, bad cred... */
		if (uid && (merr == EMUNGE_CRED_EXPIRED || merr == EMUNGE_CRED_REPLAYED ||
			    merr == EMUNGE_CRED_REWOUND))
			*uid = u;
		rv = falcon_err_set(FALCON_ERR_AUTH, "munge credential refused: %s",
				    munge_strerror(merr));
		goto fail;
	}
	if (got == NULL || glen != (int)strlen(want) || memcmp(got, want, (size_t)glen) != 0) {
		if (uid)
			*uid = u;
		rv = falcon_err_set(FALCON_ERR_AUTH,
				    "munge credential does not bind this request (%s %s)",
				    method, path);
		goto fail;
	}
	if (uid)
		*uid = u;
	if (gid)
		*gid = g;
	rv = FALCON_OK;
fail:
	free(got);
	free(want);
	if (ctx != NULL)
		munge_ctx_destroy(ctx);
	return rv;
}

const char *falcon_auth_header_cred(const char *value)
{
	size_t n = strlen(FALCON_AUTH_SCHEME);

	if (value == NULL)
		return NULL;
	while (*value == ' ' || *value == '\t')
		value++;
	if (strncasecmp(value, FALCON_AUTH_SCHEME, n) != 0 ||
	    (value[n] != ' ' && value[n] != '\t'))
		return NULL;
	value += n;
	while (*value == ' ' || *value == '\t')
		value++;
	return *value ? value : NULL;
}
