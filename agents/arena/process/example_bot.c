/* An example bot in C for the v1919 bot protocol (docs/protocol.md), version 1.
 *
 *   cc -O2 -o example_bot agents/process/example_bot.c
 *   # in a tournament config:  {cmd: "./example_bot", label: c-bot}
 *
 * It plays a legal action drawn at random (seeded by the new_game's seed). It asks the arena to
 * omit the observation, the position and the action names from its decide messages, so the one
 * field it reads is "legal", a JSON list of integers. No JSON library: the messages it reads are
 * found by their "type" and the list is read with strtol. A real bot would use a JSON parser.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long next_random(void) {          /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int is_type(const char *line, const char *type) {
    char key[64];
    snprintf(key, sizeof key, "\"type\":\"%s\"", type);
    return strstr(line, key) != NULL;
}

static void reply(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    long ids[4096];
    while (getline(&line, &cap, stdin) > 0) {
        if (is_type(line, "hello")) {
            reply("{\"type\":\"hello\",\"protocol\":\"v1919-bot\",\"version\":1,\"name\":\"example-c\","
                  "\"bot_version\":\"1.0\",\"omit\":[\"observation\",\"position\",\"names\"]}");
        } else if (is_type(line, "new_game")) {
            const char *s = strstr(line, "\"seed\":");
            if (s != NULL) {
                unsigned long long seed = strtoull(s + 7, NULL, 10);
                rng_state = seed * 2654435761ULL + 1;
            }
            reply("{\"type\":\"ready\"}");
        } else if (is_type(line, "decide")) {
            const char *p = strstr(line, "\"legal\":[");
            int n = 0;
            if (p != NULL) {
                p += 9;
                while (*p != ']' && n < 4096) {
                    char *end;
                    long v = strtol(p, &end, 10);
                    if (end == p) break;
                    ids[n++] = v;
                    p = end;
                    if (*p == ',') p++;
                }
            }
            if (n == 0) {
                fputs("example_bot: a decide message without legal ids\n", stderr);
                return 1;
            }
            char out[64];
            snprintf(out, sizeof out, "{\"type\":\"action\",\"id\":%ld}", ids[next_random() % (unsigned)n]);
            reply(out);
        } else if (is_type(line, "quit") || is_type(line, "error")) {
            break;
        }                                   /* game_over and anything else: nothing to answer */
    }
    free(line);
    return 0;
}
