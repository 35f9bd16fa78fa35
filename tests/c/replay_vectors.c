/*
 * Replays the committed reference vectors (unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt)
 * through the C ABI and requires every output bit, then prints a digest of a wider sweep
 * (pools, batches, matchmaking, saves) so that runs on different platforms can be compared.
 *
 * It is compiled by `cargo xtask test` against each committed binary of the Unity package
 * that this machine can run: Linux x86-64 natively, Linux arm64 under qemu, Windows under
 * wine, WebGL (Emscripten) under node, and against the freshly built host library.
 *
 * usage: replay_vectors <RankingEloReferenceVectors.txt> [RankingEloTeamVectors.txt]
 * output: one line per failure, then "digest <16 hex digits>", "build <id>" and
 * "N passed, N failed".
 */
#include "ranking_elo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIGS 16
#define MAX_LINE 4096

static unsigned passed = 0, failed = 0;

static void check(int ok, const char *what, unsigned line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %u: %s\n", line, what);
    }
}

static float from_hex(const char *text) {
    uint32_t bits = (uint32_t)strtoul(text, NULL, 16);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static uint32_t bits_of(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* FNV-1a, 64 bits, over the bits of every output of the sweep. */
static uint64_t digest = 0xcbf29ce484222325u;

static void mix(const void *data, size_t len) {
    const unsigned char *bytes = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++) {
        digest ^= bytes[i];
        digest *= 0x100000001b3u;
    }
}

static void mix_float(float value) {
    uint32_t bits = bits_of(value);
    mix(&bits, sizeof bits);
}

/* A "config <index> <json>" line: parses the configuration into configs[index]; returns
 * whether the line was one. */
static int read_config(const char *line, EloConfig **configs, unsigned number) {
    if (strncmp(line, "config ", 7) != 0) {
        return 0;
    }
    int index = atoi(line + 7);
    const char *json = strchr(line + 7, ' ');
    int ok = index >= 0 && index < MAX_CONFIGS && json != NULL &&
             elo_config_from_json(json + 1, (int32_t)strlen(json + 1), &configs[index]) == ELO_RESULT_OK;
    check(ok, "config parses", number);
    return 1;
}

static int replay(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        printf("cannot open %s\n", path);
        return 0;
    }
    EloConfig *configs[MAX_CONFIGS] = {0};
    char line[MAX_LINE];
    unsigned number = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        number++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || line[0] == 0) {
            continue;
        }
        if (read_config(line, configs, number)) {
            continue;
        }
        char kind[16], f[8][16];
        int fields = sscanf(line, "%15s %15s %15s %15s %15s %15s %15s %15s %15s", kind, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
        if (strcmp(kind, "rate") == 0 && fields == 8) {
            EloConfig *config = configs[atoi(f[0])];
            float a = from_hex(f[1]), b = from_hex(f[2]), score = from_hex(f[3]), new_a = 0, new_b = 0;
            EloResult rc = strcmp(f[4], "-") == 0
                               ? elo_rate(config, a, b, score, &new_a, &new_b)
                               : elo_rate_with_k(config, a, b, score, from_hex(f[4]), from_hex(f[4]), &new_a, &new_b);
            check(rc == ELO_RESULT_OK && bits_of(new_a) == bits_of(from_hex(f[5])) && bits_of(new_b) == bits_of(from_hex(f[6])), "rate", number);
        } else if (strcmp(kind, "expected") == 0 && fields == 5) {
            float e = 0;
            EloResult rc = elo_expected_score(configs[atoi(f[0])], from_hex(f[1]), from_hex(f[2]), &e);
            check(rc == ELO_RESULT_OK && bits_of(e) == bits_of(from_hex(f[3])), "expected", number);
        } else if (strcmp(kind, "mirror") == 0 && fields == 8) {
            float a = from_hex(f[0]), b = from_hex(f[1]), k = from_hex(f[2]);
            float p = elo_get_probability_winning(a, b);
            EloVector2 r = elo_update_player_rankings(a, b, k, (uint8_t)atoi(f[3]));
            check(bits_of(p) == bits_of(from_hex(f[4])) && bits_of(r.x) == bits_of(from_hex(f[5])) && bits_of(r.y) == bits_of(from_hex(f[6])), "mirror", number);
        } else {
            check(0, "unknown line", number);
        }
    }
    fclose(file);
    for (int i = 0; i < MAX_CONFIGS; i++) {
        elo_config_free(configs[i]);
    }
    return 1;
}

#define MAX_GROUP 256

/* The next `separator`-delimited token at *cursor (NUL-terminated in place), or "" at the
 * end. Portable C11 (no strtok_r on every platform). */
static char *next_token(char **cursor, char separator) {
    static char empty[] = "";
    char *start = *cursor;
    if (start == NULL || *start == 0) {
        return empty;
    }
    char *end = strchr(start, separator);
    if (end == NULL) {
        *cursor = start + strlen(start);
    } else {
        *end = 0;
        *cursor = end + 1;
    }
    return start;
}

/* Replays the team and free-for-all reference values (RankingEloTeamVectors.txt, computed
 * independently by tools/reference/team_vectors.py) through elo_rate_teams and
 * elo_rate_placements. */
static int replay_groups(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        printf("cannot open %s\n", path);
        return 0;
    }
    EloConfig *configs[MAX_CONFIGS] = {0};
    static char line[16384];
    unsigned number = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        number++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || line[0] == 0) {
            continue;
        }
        if (read_config(line, configs, number)) {
            continue;
        }
        char *arrow = strstr(line, " => ");
        if (arrow == NULL) {
            check(0, "group line has no =>", number);
            continue;
        }
        *arrow = 0;
        char *expected_text = arrow + 4;
        char *save = line;
        char *kind = next_token(&save, ' ');
        int config = atoi(next_token(&save, ' '));
        EloPlayerState states[MAX_GROUP];
        float expected[MAX_GROUP], weights[MAX_GROUP];
        int32_t places[MAX_GROUP];
        int n = 0, count_a = 0, has_weights = 0;
        float score = 0.0f;
        if (strcmp(kind, "team") == 0) {
            count_a = atoi(next_token(&save, ' '));
            n = count_a + atoi(next_token(&save, ' '));
            score = strtof(next_token(&save, ' '), NULL);
            char *w = next_token(&save, ' ');
            if (strcmp(w, "-") != 0) {
                has_weights = 1;
                for (int i = 0; i < n && n <= MAX_GROUP; i++) {
                    weights[i] = strtof(next_token(&w, ','), NULL);
                }
            }
        } else {
            n = atoi(next_token(&save, ' '));
            for (int i = 0; i < n && n <= MAX_GROUP; i++) {
                places[i] = atoi(next_token(&save, ' '));
            }
        }
        if (n < 2 || n > MAX_GROUP) {
            check(0, "group size", number);
            continue;
        }
        for (int i = 0; i < n; i++) {
            memset(&states[i], 0, sizeof states[i]);
            states[i].rating = strtof(next_token(&save, ' '), NULL);
            expected[i] = strtof(next_token(&expected_text, ' '), NULL);
        }
        EloResult rc = strcmp(kind, "team") == 0
                           ? elo_rate_teams(configs[config], states, count_a, n - count_a, has_weights ? weights : NULL, score)
                           : elo_rate_placements(configs[config], states, n, places);
        int same = rc == ELO_RESULT_OK;
        for (int i = 0; i < n; i++) {
            same = same && bits_of(states[i].rating) == bits_of(expected[i]);
            mix_float(states[i].rating);
        }
        check(same, kind, number);
    }
    fclose(file);
    for (int i = 0; i < MAX_CONFIGS; i++) {
        elo_config_free(configs[i]);
    }
    return 1;
}

/* A reproducible pseudo-random sequence (SplitMix64). */
static uint64_t state = 0x5eed;

static uint64_t next(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static float uniform(float low, float high) {
    return low + (high - low) * (float)(next() >> 40) / (float)(1u << 24);
}

#define SWEEP_PLAYERS 64
#define SWEEP_MATCHES 2000

/* Pools, batches, matchmaking and a save under several configurations: every output goes
 * into the digest. */
static void sweep(void) {
    static const char *jsons[] = {
        "{}",
        "{\"rounding\":\"truncate\",\"streak_alpha\":0.25,\"k_policy\":{\"policy\":\"fide\"}}",
        "{\"expected_score\":{\"model\":\"normal\"},\"zero_sum_total\":96000}",
        ("{\"expected_score\":{\"model\":\"linear\",\"k\":0.002},\"k_policy\":{\"policy\":\"league\"},\"k_combine\":\"average\","
         "\"leagues\":[{\"name\":\"Bronze\",\"min_rating\":0,\"k\":200},{\"name\":\"Silver\",\"min_rating\":100,\"k\":150,\"victory_bonus\":2}]}"),
    };
    static int32_t a[SWEEP_MATCHES], b[SWEEP_MATCHES];
    static float score[SWEEP_MATCHES], delta_a[SWEEP_MATCHES], delta_b[SWEEP_MATCHES], expected[SWEEP_MATCHES];
    static float ra[SWEEP_MATCHES], rb[SWEEP_MATCHES], out_a[SWEEP_MATCHES], out_b[SWEEP_MATCHES];
    for (size_t c = 0; c < sizeof jsons / sizeof jsons[0]; c++) {
        EloConfig *config = NULL;
        EloPool *pool = NULL;
        if (elo_config_from_json(jsons[c], (int32_t)strlen(jsons[c]), &config) != ELO_RESULT_OK || elo_pool_new(config, &pool) != ELO_RESULT_OK) {
            check(0, "sweep configuration", 0);
            elo_config_free(config);
            continue;
        }
        int32_t first = 0;
        elo_pool_add_players(pool, SWEEP_PLAYERS, &first);
        for (int i = 0; i < SWEEP_MATCHES; i++) {
            a[i] = (int32_t)(next() % SWEEP_PLAYERS);
            b[i] = (int32_t)((uint64_t)(a[i] + 1) + next() % (SWEEP_PLAYERS - 1)) % SWEEP_PLAYERS;
            score[i] = (float)(next() % 3) * 0.5f;
            ra[i] = uniform(-500.0f, 3500.0f);
            rb[i] = uniform(-500.0f, 3500.0f);
        }
        check(elo_pool_apply(pool, a, b, score, SWEEP_MATCHES, delta_a, delta_b, expected) == ELO_RESULT_OK, "sweep pool apply", 0);
        for (int i = 0; i < SWEEP_MATCHES; i++) {
            mix_float(delta_a[i]);
            mix_float(delta_b[i]);
            mix_float(expected[i]);
        }
        float ratings[SWEEP_PLAYERS];
        check(elo_pool_get_ratings(pool, 0, SWEEP_PLAYERS, ratings) == ELO_RESULT_OK, "sweep ratings", 0);
        mix(ratings, sizeof ratings);
        double total = 0;
        check(elo_pool_total(pool, &total) == ELO_RESULT_OK, "sweep total", 0);
        mix(&total, sizeof total);
        int32_t top[8], count = 0;
        check(elo_pool_top(pool, 8, top, &count) == ELO_RESULT_OK, "sweep top", 0);
        mix(top, sizeof top);

        int32_t json_len = 0;
        elo_pool_to_json(pool, NULL, 0, &json_len);
        char *json = (char *)malloc((size_t)json_len + 1);
        check(json != NULL && elo_pool_to_json(pool, json, json_len + 1, &json_len) == ELO_RESULT_OK, "sweep save", 0);
        if (json != NULL) {
            mix(json, (size_t)json_len);
            free(json);
        }

        EloResult rc = elo_rate_batch(config, ra, rb, score, NULL, SWEEP_MATCHES, out_a, out_b);
        if (c == 1) {
            check(rc == ELO_RESULT_K_POLICY_NEEDS_PLAYER_STATE, "sweep batch refuses fide", 0);
        } else {
            check(rc == ELO_RESULT_OK, "sweep batch", 0);
            mix(out_a, sizeof out_a);
            mix(out_b, sizeof out_b);
        }
        elo_pool_free(pool);
        elo_config_free(config);
    }

    EloMatchmaker *queue = NULL;
    check(elo_matchmaker_new(50.0, 5.0, 400.0, 4, 7, &queue) == ELO_RESULT_OK, "sweep matchmaker", 0);
    for (uint64_t id = 0; id < 500; id++) {
        elo_matchmaker_join(queue, id, uniform(1000.0f, 2000.0f), (double)id * 0.01);
    }
    uint64_t pa[256], pb[256];
    for (int tick = 0; tick < 10; tick++) {
        int32_t pairs = 0;
        check(elo_matchmaker_tick(queue, 5.0 + tick, pa, pb, 256, &pairs) == ELO_RESULT_OK, "sweep tick", 0);
        mix(&pairs, sizeof pairs);
        mix(pa, sizeof pa[0] * (size_t)pairs);
        mix(pb, sizeof pb[0] * (size_t)pairs);
    }
    elo_matchmaker_free(queue);

    for (int i = 0; i < 4000; i++) {
        float x = uniform(-4000.0f, 4000.0f), y = uniform(-4000.0f, 4000.0f);
        mix_float(elo_get_probability_winning(x, y));
        EloVector2 r = elo_update_player_rankings(x, y, uniform(0.0f, 64.0f), (uint8_t)(i & 1));
        mix_float(r.x);
        mix_float(r.y);
    }
}

/* Seasons: leagues with hysteresis and protection, a clock, decay, season ends, events,
 * records and the save, under two configurations (one zero-sum): every output goes into
 * the digest. */
static void season_sweep(void) {
    static const char *jsons[] = {
        ("{\"k_policy\":{\"policy\":\"league\"},\"demotion_margin\":30,\"protected_games\":2,"
         "\"leagues\":[{\"name\":\"B\",\"min_rating\":0,\"k\":40},{\"name\":\"S\",\"min_rating\":1480,\"k\":32,\"season_keep\":0.7},"
         "{\"name\":\"G\",\"min_rating\":1540,\"k\":24,\"victory_bonus\":1.5,\"season_keep\":0.25}],"
         "\"season_reset\":{\"keep\":0.5},\"decay\":{\"grace_days\":2,\"points_per_day\":3.5,\"min_league\":1}}"),
        ("{\"zero_sum_total\":96000,\"rounding\":\"half_away_from_zero\",\"demotion_margin\":12,"
         "\"leagues\":[{\"name\":\"L\",\"min_rating\":0,\"k\":32},{\"name\":\"H\",\"min_rating\":1510,\"k\":32}],"
         "\"season_reset\":{\"anchor\":\"pool_mean\",\"keep\":0.4},\"decay\":{\"grace_days\":1,\"points_per_day\":2}}"),
    };
    static int32_t a[SWEEP_MATCHES], b[SWEEP_MATCHES];
    static float score[SWEEP_MATCHES];
    static EloLeagueChange events[2 * SWEEP_MATCHES];
    for (size_t c = 0; c < sizeof jsons / sizeof jsons[0]; c++) {
        EloConfig *config = NULL;
        EloPool *pool = NULL;
        if (elo_config_from_json(jsons[c], (int32_t)strlen(jsons[c]), &config) != ELO_RESULT_OK || elo_pool_new(config, &pool) != ELO_RESULT_OK) {
            check(0, "season configuration", 0);
            elo_config_free(config);
            continue;
        }
        int32_t first = 0;
        elo_pool_add_players(pool, SWEEP_PLAYERS, &first);
        for (int season = 0; season < 3; season++) {
            for (int day = 0; day < 5; day++) {
                double now = (season * 10.0 + day * 2.0) * 86400.0;
                check(elo_pool_set_clock(pool, now) == ELO_RESULT_OK, "season clock", 0);
                int32_t n = SWEEP_MATCHES / 10 - (int32_t)(next() % 50), happened = 0, decayed = 0;
                for (int i = 0; i < n; i++) {
                    a[i] = (int32_t)(next() % (SWEEP_PLAYERS / 2)); /* half the players never play: decay */
                    b[i] = (int32_t)((uint64_t)(a[i] + 1) + next() % (SWEEP_PLAYERS / 2 - 1)) % (SWEEP_PLAYERS / 2);
                    score[i] = (float)(next() % 3) * 0.5f;
                }
                check(elo_pool_apply_events(pool, a, b, score, n, events, 2 * SWEEP_MATCHES, &happened) == ELO_RESULT_OK, "season apply", 0);
                mix(&happened, sizeof happened);
                mix(events, sizeof events[0] * (size_t)happened);
                check(elo_pool_apply_decay(pool, now, events, 2 * SWEEP_MATCHES, &happened, &decayed) == ELO_RESULT_OK, "season decay", 0);
                mix(&decayed, sizeof decayed);
                mix(events, sizeof events[0] * (size_t)happened);
            }
            EloPlayerState players[SWEEP_PLAYERS];
            check(elo_pool_get_players(pool, 0, SWEEP_PLAYERS, players) == ELO_RESULT_OK, "season players", 0);
            for (int i = 0; i < SWEEP_PLAYERS; i++) {
                mix_float(players[i].rating);
                mix_float(players[i].peak_rating);
                mix(&players[i].league, sizeof players[i].league);
                mix(&players[i].protected_games, sizeof players[i].protected_games);
                mix(&players[i].season_games, sizeof players[i].season_games);
                mix(&players[i].last_played, sizeof players[i].last_played);
            }
            EloSeasonRecord records[SWEEP_PLAYERS];
            int32_t happened = 0;
            check(elo_pool_end_season(pool, records, SWEEP_PLAYERS, NULL, 0, events, 2 * SWEEP_MATCHES, &happened) == ELO_RESULT_OK, "season end", 0);
            mix(records, sizeof records);
            mix(events, sizeof events[0] * (size_t)happened);
        }
        int32_t json_len = 0;
        elo_pool_to_json(pool, NULL, 0, &json_len);
        char *json = (char *)malloc((size_t)json_len + 1);
        check(json != NULL && elo_pool_to_json(pool, json, json_len + 1, &json_len) == ELO_RESULT_OK, "season save", 0);
        if (json != NULL) {
            mix(json, (size_t)json_len);
            free(json);
        }
        elo_pool_free(pool);
        elo_config_free(config);
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: replay_vectors <RankingEloReferenceVectors.txt> [RankingEloTeamVectors.txt]\n");
        return 2;
    }
    check(replay(argv[1]), "vectors file opens", 0);
    if (argc == 3) {
        check(replay_groups(argv[2]), "team vectors file opens", 0);
    }
    sweep();
    season_sweep();
    printf("digest %016" PRIx64 "\n", digest);
    printf("build %s\n", elo_build_id());
    printf("%u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
