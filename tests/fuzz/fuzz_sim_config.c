/*
 * fuzz_sim_config.c - libFuzzer over falcon-sim's configuration and fault
 * parsers (sim_config_from_json, sim_faults_from_json) and the mode rules
 * on whatever configuration parses: bad input is an error, never a crash.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;
	static struct sim_config cfg;
	struct sim_state st;
	struct sim_faults f;
	int p, d, s;

	if (tok == NULL)
		return 0;
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	if (o != NULL) {
		if (sim_config_from_json(o, "fuzz", &cfg) == FALCON_OK) {
			sim_state_init(&st);
			for (p = 0; p < SIM_PORTS; p++)
				for (d = 1; d <= SIM_DRAWERS; d++)
					for (s = 1; s <= SIM_SLOTS; s++)
						if (sim_check_attach(&cfg, &st, p, d, s) == FALCON_OK)
							st.slot[d - 1][s - 1].owner = p;
		}
		if (sim_faults_from_json(o, &f) == FALCON_OK) {
			struct sim_fault_rule r;
			struct json_object *back = sim_faults_to_json(&f);

			sim_fault_match(&f, "GET", "/redfish/v1", &r);
			json_object_put(back);
		}
		json_object_put(o);
	}
	json_tokener_free(tok);
	return 0;
}
