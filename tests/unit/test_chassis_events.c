/*
 * test_chassis_events.c - unit tests of lib/chassis/rf_sse.c (Server-Sent
 * Events framing, in any chunking, and its line bound) and
 * chassis_events.c (Redfish Event records, malformed ones).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Server-Sent Events and Redfish Events (rf_sse.c)                     */
/* ------------------------------------------------------------------ */

struct sse_got {
	int n;
	char id[8][64];
	char data[8][512];
};

static void sse_collect(void *ctx, const char *id, const char *data, size_t len)
{
	struct sse_got *g = ctx;

	ck_assert_int_lt(g->n, 8);
	ck_assert_uint_eq(strlen(data), len);
	falcon_strlcpy(g->id[g->n], id, sizeof(g->id[0]));
	falcon_strlcpy(g->data[g->n], data, sizeof(g->data[0]));
	g->n++;
}

/* feed text in chunks of `chunk` bytes (1 = byte by byte) */
static void sse_run(const char *text, size_t chunk, struct sse_got *g)
{
	struct falcon_sse p;
	size_t off, len = strlen(text);

	memset(g, 0, sizeof(*g));
	falcon_sse_init(&p);
	for (off = 0; off < len; off += chunk)
		ck_assert_int_eq(falcon_sse_feed(&p, text + off, len - off < chunk ? len - off : chunk,
						 sse_collect, g), FALCON_OK);
	falcon_sse_free(&p);
}

static const char sse_text[] =
	": keep-alive\n\n"                       /* a comment alone: no event */
	"id: 7\ndata: {\"a\":1}\n\n"              /* LF */
	"id: 8\r\ndata: line1\r\ndata:line2\r\n\r\n" /* CRLF, no space after ':' */
	"id: 9\rdata: x\r\r"                      /* CR alone */
	"event: ignored\nretry: 5\n: note\ndata\n\n" /* "data" without ':' = "" */
	"id: 10\n\n"                              /* an id without data: no event */
	"data: after\n\n"                         /* keeps the last id */
	"data: unterminated\n";                   /* no empty line yet */

START_TEST(test_sse_chunks)
{
	static const size_t chunks[] = { 1, 2, 3, 5, 7, 16, 4096 };
	struct sse_got g;
	size_t i;

	/* every split of the stream, CRLFs cut between their CR and LF too */
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		sse_run(sse_text, chunks[i], &g);
		ck_assert_int_eq(g.n, 5);
		ck_assert_str_eq(g.id[0], "7");
		ck_assert_str_eq(g.data[0], "{\"a\":1}");
		ck_assert_str_eq(g.id[1], "8");
		ck_assert_str_eq(g.data[1], "line1\nline2");
		ck_assert_str_eq(g.id[2], "9");
		ck_assert_str_eq(g.data[2], "x");
		ck_assert_str_eq(g.id[3], "9");
		ck_assert_str_eq(g.data[3], "");
		ck_assert_str_eq(g.id[4], "10");
		ck_assert_str_eq(g.data[4], "after");
	}
}
END_TEST

START_TEST(test_sse_too_long)
{
	struct falcon_sse p;
	struct sse_got g;
	size_t n = FALCON_SSE_MAX_LINE + 16;
	char *big = malloc(n);

	ck_assert_ptr_nonnull(big);
	memset(&g, 0, sizeof(g));
	memcpy(big, "data: ", 6);
	memset(big + 6, 'x', n - 6);
	falcon_sse_init(&p);
	ck_assert_int_eq(falcon_sse_feed(&p, big, n, sse_collect, &g), FALCON_ERR_PROTOCOL);
	falcon_sse_free(&p);
	free(big);
	ck_assert_int_eq(g.n, 0);
}
END_TEST

struct ev_got {
	int n;
	struct falcon_chassis_event ev[4];
};

static void ev_collect(void *ctx, const struct falcon_chassis_event *ev)
{
	struct ev_got *g = ctx;

	ck_assert_int_lt(g->n, 4);
	g->ev[g->n++] = *ev;
}

START_TEST(test_events_parse)
{
	static const char ev[] =
		"{\"@odata.type\":\"#Event.v1_7_0.Event\",\"Id\":\"3\",\"Events\":["
		"{\"EventType\":\"StatusChange\",\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedCritical\","
		"\"Message\":\"The health of resource 'drawer1_slot2' has changed to Critical.\\n\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Chassis/falcon1/PCIeDevices/drawer1_slot2\"}},"
		"{\"MessageId\":\"ResourceEvent.1.0.ResourceRemoved\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe/Endpoints/drawer2_slot5/\"}},"
		"{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedOK\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Chassis/falcon1/PCIeDevices/drawer1_slot1\"}},"
		"{\"MessageId\":\"Base.1.16.Success\",\"OriginOfCondition\":\"not a link\"}]}";
	struct ev_got g;

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(falcon_rf_events_parse(ev, strlen(ev), "c1", "", ev_collect, &g), 4);
	ck_assert_int_eq(g.n, 4);
	ck_assert_int_eq(g.ev[0].kind, FALCON_EVENT_HEALTH);
	ck_assert_str_eq(g.ev[0].health, "Critical");
	ck_assert_str_eq(g.ev[0].device, "drawer1_slot2");
	ck_assert_str_eq(g.ev[0].chassis, "c1");
	ck_assert_str_eq(g.ev[0].event_id, "3"); /* no SSE id: the Event's Id */
	ck_assert_str_eq(g.ev[0].message,
			 "The health of resource 'drawer1_slot2' has changed to Critical.?");
	ck_assert_int_eq(g.ev[1].kind, FALCON_EVENT_REMOVED);
	ck_assert_str_eq(g.ev[1].device, "drawer2_slot5");
	ck_assert_int_eq(g.ev[2].kind, FALCON_EVENT_HEALTH);
	ck_assert_str_eq(g.ev[2].health, "OK");
	ck_assert_int_eq(g.ev[3].kind, FALCON_EVENT_OTHER);
	ck_assert_str_eq(g.ev[3].device, "");
	/* an SSE id wins over the Event's Id */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(falcon_rf_events_parse(ev, strlen(ev), "c1", "41", ev_collect, &g), 4);
	ck_assert_str_eq(g.ev[0].event_id, "41");
}
END_TEST

START_TEST(test_events_malformed)
{
	static const char *const bad[] = {
		"", "not json", "{\"Events\":{}}", "[1]", "{\"Id\":\"1\"}",
		"{\"Events\":[{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedCritical\"}", /* cut */
	};
	struct ev_got g;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&g, 0, sizeof(g));
		ck_assert_int_eq(falcon_rf_events_parse(bad[i], strlen(bad[i]), "c1", "1",
							ev_collect, &g), -1);
		ck_assert_int_eq(g.n, 0);
	}
	/* a record of unknown shape is OTHER, never a health change */
	{
		static const char odd[] = "{\"Events\":[7,{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedBogus\"},"
					  "{\"MessageId\":\"ResourceEvent\"}]}";

		memset(&g, 0, sizeof(g));
		ck_assert_int_eq(falcon_rf_events_parse(odd, strlen(odd), "c1", "1", ev_collect, &g), 3);
		ck_assert_int_eq(g.ev[0].kind, FALCON_EVENT_OTHER);
		ck_assert_int_eq(g.ev[1].kind, FALCON_EVENT_OTHER);
		ck_assert_int_eq(g.ev[2].kind, FALCON_EVENT_OTHER);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chassis_events");
	TCase *tc;

	falcon_log_init("test_chassis_events");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("events");
	tcase_add_test(tc, test_sse_chunks);
	tcase_add_test(tc, test_sse_too_long);
	tcase_add_test(tc, test_events_parse);
	tcase_add_test(tc, test_events_malformed);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
