/*
 * rf_sse.c - Server-Sent Events (WHATWG HTML sec. 9.2.6, "Interpreting an
 * event stream", as DMTF DSP0266 1.20 sec. 13.5.2 uses it) split into
 * events, and Redfish Events (#Event.v1_x, ResourceEvent registry) read
 * from their data with json-c.  Pure: no I/O; rf_http.c feeds it what
 * libcurl receives.  See redfish.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis_types.h"
#include "chassis/redfish.h"
#include "core/util.h"

void falcon_sse_init(struct falcon_sse *p)
{
	memset(p, 0, sizeof(*p));
}

void falcon_sse_free(struct falcon_sse *p)
{
	free(p->line);
	free(p->data);
	memset(p, 0, sizeof(*p));
}

/* grow - room for need more bytes plus a NUL in *buf (cap *cap). */
static falcon_err_t grow(char **buf, size_t *cap, size_t len, size_t need)
{
	size_t ncap;
	char *nb;

	if (len + need + 1 <= *cap)
		return FALCON_OK;
	if (len + need + 1 > FALCON_SSE_MAX_LINE)
		return falcon_err_set(FALCON_ERR_PROTOCOL,
				      "SSE: a line or an event's data over %u bytes",
				      FALCON_SSE_MAX_LINE);
	ncap = *cap ? *cap : 256;
	while (ncap < len + need + 1)
		ncap *= 2;
	if ((nb = realloc(*buf, ncap)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "SSE: out of memory");
	*buf = nb;
	*cap = ncap;
	return FALCON_OK;
}

/* line - one complete line (p->line, p->len bytes): a field, a comment, or
 * (empty) the end of an event. */
static falcon_err_t line(struct falcon_sse *p, falcon_sse_fn *fn, void *ctx)
{
	const char *l = p->line ? p->line : "", *val;
	size_t flen, vlen;
	falcon_err_t rv;

	if (p->len == 0) {
		if (p->has_data) {
			/* drop the "\n" after the last data line */
			p->data[--p->dlen] = '\0';
			fn(ctx, p->id, p->data, p->dlen);
		}
		p->dlen = 0;
		p->has_data = false;
		return FALCON_OK;
	}
	if (l[0] == ':')
		return FALCON_OK; /* a comment (keep-alive) */
	val = memchr(l, ':', p->len);
	flen = val ? (size_t)(val - l) : p->len;
	if (val == NULL) {
		val = l + p->len;
	} else {
		val++;
		if (val < l + p->len && *val == ' ')
			val++;
	}
	vlen = p->len - (size_t)(val - l);
	if (flen == 4 && memcmp(l, "data", 4) == 0) {
		if ((rv = grow(&p->data, &p->dcap, p->dlen, vlen + 1)) != FALCON_OK)
			return rv;
		memcpy(p->data + p->dlen, val, vlen);
		p->dlen += vlen;
		p->data[p->dlen++] = '\n';
		p->data[p->dlen] = '\0';
		p->has_data = true;
	} else if (flen == 2 && memcmp(l, "id", 2) == 0 && memchr(val, '\0', vlen) == NULL) {
		if (vlen >= sizeof(p->id))
			vlen = sizeof(p->id) - 1;
		memcpy(p->id, val, vlen);
		p->id[vlen] = '\0';
	}
	return FALCON_OK;
}

falcon_err_t falcon_sse_feed(struct falcon_sse *p, const char *buf, size_t n,
			     falcon_sse_fn *fn, void *ctx)
{
	falcon_err_t rv;
	size_t i;

	for (i = 0; i < n; i++) {
		char c = buf[i];

		if (p->after_cr) {
			p->after_cr = false;
			if (c == '\n')
				continue; /* the LF of a CRLF */
		}
		if (c == '\r' || c == '\n') {
			p->after_cr = c == '\r';
			if (p->line != NULL)
				p->line[p->len] = '\0';
			if ((rv = line(p, fn, ctx)) != FALCON_OK)
				return rv;
			p->len = 0;
			continue;
		}
		if ((rv = grow(&p->line, &p->cap, p->len, 1)) != FALCON_OK)
			return rv;
		p->line[p->len++] = c;
	}
	return FALCON_OK;
}

/* copy_clean - src into dst (n bytes) with control characters as '?'. */
static void copy_clean(char *dst, size_t n, const char *src)
{
	size_t i;

	falcon_strlcpy(dst, src ? src : "", n);
	for (i = 0; dst[i] != '\0'; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

/* classify - kind and health of a record from its MessageId. */
static void classify(struct falcon_chassis_event *ev)
{
	static const char *const healths[] = { "OK", "Warning", "Critical" };
	const char *key;
	size_t i;

	ev->kind = FALCON_EVENT_OTHER;
	if (strncmp(ev->message_id, "ResourceEvent.", 14) != 0)
		return;
	key = strrchr(ev->message_id, '.') + 1;
	if (strcmp(key, "ResourceRemoved") == 0) {
		ev->kind = FALCON_EVENT_REMOVED;
		return;
	}
	if (strncmp(key, "ResourceStatusChanged", 21) != 0)
		return;
	for (i = 0; i < sizeof(healths) / sizeof(healths[0]); i++)
		if (strcmp(key + 21, healths[i]) == 0) {
			ev->kind = FALCON_EVENT_HEALTH;
			falcon_strlcpy(ev->health, healths[i], sizeof(ev->health));
		}
}

int falcon_rf_events_parse(const char *data, size_t len, const char *chassis, const char *id,
			   void (*fn)(void *ctx, const struct falcon_chassis_event *ev),
			   void *ctx)
{
	struct json_object *o = NULL, *evs;
	size_t i, n;

	if (falcon_rf_parse(data, len, "SSE event", &o) != FALCON_OK)
		return -1;
	evs = falcon_rf_arr(o, "Events");
	if (evs == NULL) {
		json_object_put(o);
		falcon_err_set(FALCON_ERR_PROTOCOL, "SSE event: not a Redfish Event (no Events array)");
		return -1;
	}
	n = json_object_array_length(evs);
	for (i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(evs, i);
		struct falcon_chassis_event ev;
		const char *origin = falcon_rf_link(r, "OriginOfCondition");

		memset(&ev, 0, sizeof(ev));
		falcon_strlcpy(ev.chassis, chassis ? chassis : "", sizeof(ev.chassis));
		copy_clean(ev.event_id, sizeof(ev.event_id),
			   id && id[0] ? id : falcon_rf_str(o, "Id"));
		copy_clean(ev.message_id, sizeof(ev.message_id), falcon_rf_str(r, "MessageId"));
		copy_clean(ev.message, sizeof(ev.message), falcon_rf_str(r, "Message"));
		if (origin != NULL) {
			falcon_strlcpy(ev.origin, origin, sizeof(ev.origin));
			falcon_rf_last_segment(origin, ev.device, sizeof(ev.device));
		}
		classify(&ev);
		fn(ctx, &ev);
	}
	json_object_put(o);
	return (int)n;
}
