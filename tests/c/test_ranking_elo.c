/*
 * C test of the ranking-elo C ABI, compiled against the generated header with
 * -std=c11 -Wall -Wextra -Wpedantic -Werror and linked to the built library (once to the
 * shared library, once to the static one) by `cargo xtask test`.
 */
#include "ranking_elo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

#define CHECK(condition)                                                        \
    do {                                                                        \
        if (condition) {                                                        \
            passed++;                                                           \
        } else {                                                                \
            failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #condition);                                                \
        }                                                                       \
    } while (0)

#define CHECK_CODE(call, expected)                                              \
    do {                                                                        \
        EloResult got_ = (call);                                                \
        if (got_ == (EloResult)(expected)) {                                    \
            passed++;                                                           \
        } else {                                                                \
            failed++;                                                           \
            fprintf(stderr, "%s:%d: %s returned %u, expected %u (%s)\n",       \
                    __FILE__, __LINE__, #call, (unsigned)got_,                  \
                    (unsigned)(expected), last_message());                      \
        }                                                                       \
    } while (0)

static const char *last_message(void) {
    static char buffer[512];
    int32_t len = 0;
    if (elo_last_error_message(buffer, (int32_t)sizeof buffer, &len) != ELO_RESULT_OK) {
        return "(message did not fit)";
    }
    return buffer;
}

static int near(float got, double expected, double tolerance) {
    return fabs((double)got - expected) <= tolerance;
}

static EloConfig *config_from(const char *json) {
    EloConfig *config = NULL;
    EloResult code = elo_config_from_json(json, (int32_t)strlen(json), &config);
    if (code != ELO_RESULT_OK) {
        fprintf(stderr, "config failed (%u): %s\n", (unsigned)code, last_message());
        return NULL;
    }
    return config;
}

static void test_tutorial_mirrors(void) {
    float p = elo_get_probability_winning(1700.0f, 1300.0f);
    CHECK(near(p, 1.0 / 1.1, 1e-7));
    CHECK(elo_get_probability_winning(1500.0f, 1500.0f) == 0.5f);

    EloVector2 loss = elo_update_player_rankings(1700.0f, 1300.0f, 32.0f, 0);
    CHECK(near(loss.x, 1670.909, 1e-3) && near(loss.y, 1329.091, 1e-3));
    EloVector2 win = elo_update_player_rankings(1000.0f, 1000.0f, 32.0f, 1);
    CHECK(win.x == 1016.0f && win.y == 984.0f);
    EloVector2 nan_in = elo_update_player_rankings(NAN, 1300.0f, 32.0f, 1);
    CHECK(isnan(nan_in.x) && isnan(nan_in.y));

    /* The checked score form: the mirror's bits for wins and losses, draws too. */
    float s1 = 0.0f, s2 = 0.0f;
    CHECK_CODE(elo_update_player_rankings_score(1700.0f, 1300.0f, 32.0f, 0.0f, &s1, &s2), ELO_RESULT_OK);
    CHECK(memcmp(&s1, &loss.x, sizeof s1) == 0 && memcmp(&s2, &loss.y, sizeof s2) == 0);
    CHECK_CODE(elo_update_player_rankings_score(1500.0f, 1500.0f, 32.0f, 0.5f, &s1, &s2), ELO_RESULT_OK);
    CHECK(s1 == 1500.0f && s2 == 1500.0f);
    CHECK_CODE(elo_update_player_rankings_score(1500.0f, NAN, 32.0f, 1.0f, &s1, &s2), ELO_RESULT_NOT_FINITE);
    CHECK(strstr(last_message(), "rating_player2") != NULL);
    CHECK_CODE(elo_update_player_rankings_score(1500.0f, 1500.0f, -1.0f, 1.0f, &s1, &s2), ELO_RESULT_NEGATIVE_K);
    CHECK(strstr(last_message(), "multiplier") != NULL);
    CHECK_CODE(elo_update_player_rankings_score(1500.0f, 1500.0f, 32.0f, 1.5f, &s1, &s2), ELO_RESULT_SCORE_OUT_OF_RANGE);
    CHECK(s1 == 1500.0f); /* untouched on failure */
}

static void test_configured_single_calls(void) {
    EloConfig *integer_elo = config_from("{\"rounding\": \"truncate\"}");
    CHECK(integer_elo != NULL);
    float a = 0.0f, b = 0.0f;
    CHECK_CODE(elo_rate(integer_elo, 1700.0f, 1300.0f, 1.0f, &a, &b), ELO_RESULT_OK);
    CHECK(a == 1702.0f && b == 1298.0f);
    CHECK_CODE(elo_rate(integer_elo, 1700.0f, 1300.0f, 0.0f, &a, &b), ELO_RESULT_OK);
    CHECK(a == 1671.0f && b == 1329.0f);

    EloConfig *defaults = NULL;
    CHECK_CODE(elo_config_new(&defaults), ELO_RESULT_OK);
    CHECK_CODE(elo_rate(defaults, 1500.0f, 1500.0f, 0.5f, &a, &b), ELO_RESULT_OK);
    CHECK(a == 1500.0f && b == 1500.0f);
    CHECK_CODE(elo_rate_points(defaults, 1000.0f, 1000.0f, 3.0f, 2.0f, &a, &b), ELO_RESULT_OK);
    CHECK(near(a, 1000.0 + 32.0 * 0.1, 1e-4) && near(b, 1000.0 - 32.0 * 0.1, 1e-4));
    float e = 0.0f;
    CHECK_CODE(elo_expected_score(defaults, 1300.0f, 1700.0f, &e), ELO_RESULT_OK);
    CHECK(near(e, 1.0 - 1.0 / 1.1, 1e-7));

    EloConfig *fide = config_from("{\"k_policy\": {\"policy\": \"fide\", \"period_rule\": true}}");
    EloPlayerState newcomer, veteran;
    CHECK_CODE(elo_player_new(fide, &newcomer), ELO_RESULT_OK);
    CHECK(newcomer.rating == 1500.0f && newcomer.games_played == 0);
    veteran = newcomer;
    veteran.games_played = 100;
    CHECK_CODE(elo_rate_players(fide, &newcomer, &veteran, 1.0f), ELO_RESULT_OK);
    /* E = 0.5: the newcomer (K 40) gains 20, the veteran (K 20) loses 10. */
    CHECK(newcomer.rating == 1520.0f && veteran.rating == 1490.0f);
    CHECK(newcomer.games_played == 1 && newcomer.win_streak == 1 && veteran.win_streak == 0);
    CHECK_CODE(elo_rate(fide, 1500.0f, 1500.0f, 1.0f, &a, &b), ELO_RESULT_K_POLICY_NEEDS_PLAYER_STATE);

    elo_config_free(integer_elo);
    elo_config_free(defaults);
    elo_config_free(fide);
}

static void test_batch(void) {
    EloConfig *config = NULL;
    CHECK_CODE(elo_config_new(&config), ELO_RESULT_OK);
    float ra[4] = {1700.0f, 1000.0f, 1500.0f, 1300.0f};
    float rb[4] = {1300.0f, 1000.0f, 1500.0f, 1700.0f};
    const float scores[4] = {0.0f, 1.0f, 0.5f, 1.0f};
    float out_a[4], out_b[4];
    CHECK_CODE(elo_rate_batch(config, ra, rb, scores, NULL, 4, out_a, out_b), ELO_RESULT_OK);
    for (int i = 0; i < 4; i++) {
        float a = 0.0f, b = 0.0f;
        CHECK_CODE(elo_rate(config, ra[i], rb[i], scores[i], &a, &b), ELO_RESULT_OK);
        CHECK(memcmp(&a, &out_a[i], sizeof a) == 0 && memcmp(&b, &out_b[i], sizeof b) == 0);
    }
    CHECK(out_a[1] == 1016.0f && out_b[1] == 984.0f);

    /* In place: the rating arrays receive the new ratings. */
    CHECK_CODE(elo_rate_batch(config, ra, rb, scores, NULL, 4, ra, rb), ELO_RESULT_OK);
    CHECK(memcmp(ra, out_a, sizeof ra) == 0 && memcmp(rb, out_b, sizeof rb) == 0);

    /* The tutorial's batch equals its single call bit for bit. */
    float t1[2] = {1700.0f, 1000.0f}, t2[2] = {1300.0f, 1000.0f};
    const float wins[2] = {0.0f, 1.0f};
    CHECK_CODE(elo_update_player_rankings_batch(t1, t2, wins, 32.0f, 2, t1, t2), ELO_RESULT_OK);
    EloVector2 single = elo_update_player_rankings(1700.0f, 1300.0f, 32.0f, 0);
    CHECK(memcmp(&single.x, &t1[0], sizeof(float)) == 0 && memcmp(&single.y, &t2[0], sizeof(float)) == 0);

    /* Per-pair K. */
    const float k[1] = {10.0f};
    float ka[1] = {1000.0f}, kb[1] = {1000.0f};
    CHECK_CODE(elo_rate_batch(config, ka, kb, &scores[1], k, 1, ka, kb), ELO_RESULT_OK);
    CHECK(ka[0] == 1005.0f && kb[0] == 995.0f);
    elo_config_free(config);
}

static void test_errors(void) {
    EloConfig *config = NULL;
    CHECK_CODE(elo_config_new(&config), ELO_RESULT_OK);
    float ra[2] = {1500.0f, 1500.0f}, rb[2] = {1500.0f, NAN};
    const float scores[2] = {1.0f, 0.0f};
    float out_a[2] = {-1.0f, -1.0f}, out_b[2] = {-1.0f, -1.0f};

    CHECK_CODE(elo_rate_batch(config, ra, rb, scores, NULL, 2, out_a, out_b), ELO_RESULT_NOT_FINITE);
    CHECK(strstr(last_message(), "rating_b[1]") != NULL);
    CHECK(out_a[0] == -1.0f && out_b[0] == -1.0f); /* nothing half-applied */
    CHECK_CODE(elo_rate_batch(config, ra, rb, scores, NULL, -1, out_a, out_b), ELO_RESULT_INVALID_LENGTH);
    CHECK_CODE(elo_rate_batch(NULL, ra, rb, scores, NULL, 1, out_a, out_b), ELO_RESULT_NULL_POINTER);
    CHECK(strstr(last_message(), "config") != NULL);
    CHECK_CODE(elo_rate_batch(config, ra, rb, scores, NULL, 1, ra, out_b), ELO_RESULT_OVERLAPPING_BUFFERS);

    float a = -1.0f, b = -1.0f;
    CHECK_CODE(elo_rate(config, 1500.0f, 1500.0f, 1.5f, &a, &b), ELO_RESULT_SCORE_OUT_OF_RANGE);
    CHECK_CODE(elo_rate_points(config, 1500.0f, 1500.0f, -1.0f, 2.0f, &a, &b), ELO_RESULT_NEGATIVE_POINTS);
    CHECK_CODE(elo_rate_with_k(config, 1500.0f, 1500.0f, 1.0f, INFINITY, 1.0f, &a, &b), ELO_RESULT_NOT_FINITE);
    CHECK(a == -1.0f && b == -1.0f);

    EloConfig *bad = NULL;
    const char *unknown = "{\"k_factr\": 32}";
    CHECK_CODE(elo_config_from_json(unknown, (int32_t)strlen(unknown), &bad), ELO_RESULT_UNKNOWN_JSON_FIELD);
    CHECK(strstr(last_message(), "k_factr") != NULL);
    const char *negative = "{\"k_policy\": {\"policy\": \"constant\", \"k\": -5}}";
    CHECK_CODE(elo_config_from_json(negative, (int32_t)strlen(negative), &bad), ELO_RESULT_INVALID_CONFIG);
    CHECK(strstr(last_message(), "k_policy.k") != NULL);
    CHECK_CODE(elo_config_from_json("{", 1, &bad), ELO_RESULT_INVALID_JSON);
    CHECK(bad == NULL);

    /* Message buffer rules: length query, too small, exact fit. */
    int32_t len = -1;
    CHECK_CODE(elo_last_error_message(NULL, 0, &len), ELO_RESULT_BUFFER_TOO_SMALL);
    CHECK(len > 0);
    char tiny[4] = {'x', 'x', 'x', 'x'};
    CHECK_CODE(elo_last_error_message(tiny, 4, &len), ELO_RESULT_BUFFER_TOO_SMALL);
    CHECK(tiny[0] == 'x');
    char exact[512];
    CHECK_CODE(elo_last_error_message(exact, len + 1, &len), ELO_RESULT_OK);
    CHECK((int32_t)strlen(exact) == len);
    CHECK(elo_last_error_code() == ELO_RESULT_INVALID_JSON);

    char description[128];
    CHECK_CODE(elo_result_description(ELO_RESULT_NULL_POINTER, description, 128, &len), ELO_RESULT_OK);
    CHECK(strstr(description, "NULL") != NULL);
    elo_config_free(config);
}

static void test_json_round_trip(void) {
    const char *json = "{\"expected_score\": {\"model\": \"normal\", \"beta\": 250}, \"min_rating\": 100,"
                       " \"leagues\": [{\"name\": \"Bronze\", \"min_rating\": 0, \"k\": 200},"
                       " {\"name\": \"Silver\", \"min_rating\": 100, \"k\": 150}]}";
    EloConfig *config = config_from(json);
    CHECK(config != NULL);
    int32_t len = 0;
    CHECK_CODE(elo_config_to_json(config, NULL, 0, &len), ELO_RESULT_BUFFER_TOO_SMALL);
    char buffer[4096];
    CHECK(len < (int32_t)sizeof buffer);
    CHECK_CODE(elo_config_to_json(config, buffer, (int32_t)sizeof buffer, &len), ELO_RESULT_OK);
    CHECK(strstr(buffer, "\"Silver\"") != NULL);
    EloConfig *copy = config_from(buffer);
    CHECK(copy != NULL);
    int32_t count = 0, index = -1;
    CHECK_CODE(elo_config_league_count(copy, &count), ELO_RESULT_OK);
    CHECK(count == 2);
    CHECK_CODE(elo_config_league_of(copy, -50.0f, &index), ELO_RESULT_OK);
    CHECK(index == 0);
    CHECK_CODE(elo_config_league_of(copy, 150.0f, &index), ELO_RESULT_OK);
    CHECK(index == 1);
    elo_config_free(config);
    elo_config_free(copy);
    elo_config_free(NULL);
}

static void test_pool_and_matchmaker(void) {
    EloConfig *config = config_from("{\"zero_sum_total\": 6000}");
    EloPool *pool = NULL;
    CHECK_CODE(elo_pool_new(config, &pool), ELO_RESULT_OK);
    elo_config_free(config); /* the pool keeps its own copy */
    int32_t first = -1, len = 0;
    CHECK_CODE(elo_pool_add_players(pool, 4, &first), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_len(pool, &len), ELO_RESULT_OK);
    CHECK(first == 0 && len == 4);

    const int32_t a[3] = {0, 2, 0}, b[3] = {1, 3, 2};
    const float scores[3] = {1.0f, 0.5f, 1.0f};
    float delta_a[3], expected[3];
    CHECK_CODE(elo_pool_apply(pool, a, b, scores, 3, delta_a, NULL, expected), ELO_RESULT_OK);
    CHECK(delta_a[0] == 16.0f && expected[0] == 0.5f);
    double total = 0.0;
    CHECK_CODE(elo_pool_total(pool, &total), ELO_RESULT_OK);
    CHECK(fabs(total - 6000.0) < 1e-6);

    /* A bad match anywhere: nothing applied, position reported. */
    float before[4], after[4];
    CHECK_CODE(elo_pool_get_ratings(pool, 0, 4, before), ELO_RESULT_OK);
    const int32_t bad_b[3] = {1, 3, 7};
    CHECK_CODE(elo_pool_apply(pool, a, bad_b, scores, 3, NULL, NULL, NULL), ELO_RESULT_INDEX_OUT_OF_RANGE);
    CHECK(strncmp(last_message(), "matches[2]", 10) == 0);
    CHECK_CODE(elo_pool_get_ratings(pool, 0, 4, after), ELO_RESULT_OK);
    CHECK(memcmp(before, after, sizeof before) == 0);

    int32_t top[2], count = 0, rank = 0;
    CHECK_CODE(elo_pool_top(pool, 2, top, &count), ELO_RESULT_OK);
    CHECK(count == 2 && top[0] == 0);
    CHECK_CODE(elo_pool_rank(pool, 0, &rank), ELO_RESULT_OK);
    CHECK(rank == 1);
    EloPlayerState p0;
    CHECK_CODE(elo_pool_get_player(pool, 0, &p0), ELO_RESULT_OK);
    CHECK(p0.games_played == 2 && p0.win_streak == 2);

    /* Save and restore through a buffer. */
    int32_t needed = 0;
    CHECK_CODE(elo_pool_to_json(pool, NULL, 0, &needed), ELO_RESULT_BUFFER_TOO_SMALL);
    static char save[8192];
    CHECK(needed < (int32_t)sizeof save);
    CHECK_CODE(elo_pool_to_json(pool, save, (int32_t)sizeof save, &needed), ELO_RESULT_OK);
    EloConfig *plain = NULL;
    EloPool *copy = NULL;
    CHECK_CODE(elo_config_new(&plain), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_new(plain, &copy), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_load_json(copy, save, needed), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_get_ratings(copy, 0, 4, after), ELO_RESULT_OK);
    CHECK(memcmp(before, after, sizeof before) == 0);
    CHECK_CODE(elo_pool_load_json(copy, save, needed / 2), ELO_RESULT_INVALID_SAVE);
    elo_pool_free(copy);
    elo_pool_free(pool);
    elo_config_free(plain);

    /* Matchmaking. */
    EloMatchmaker *queue = NULL;
    CHECK_CODE(elo_matchmaker_new(100.0, 10.0, 400.0, 4, 42, &queue), ELO_RESULT_OK);
    CHECK_CODE(elo_matchmaker_join(queue, 1, 1500.0f, 0.0), ELO_RESULT_OK);
    CHECK_CODE(elo_matchmaker_join(queue, 2, 1580.0f, 0.0), ELO_RESULT_OK);
    CHECK_CODE(elo_matchmaker_join(queue, 3, 2300.0f, 0.0), ELO_RESULT_OK);
    CHECK_CODE(elo_matchmaker_join(queue, 1, 1500.0f, 0.0), ELO_RESULT_DUPLICATE_ID);
    uint64_t pa[2], pb[2];
    int32_t pairs = -1;
    CHECK_CODE(elo_matchmaker_tick(queue, 1.0, pa, pb, 2, &pairs), ELO_RESULT_OK);
    CHECK(pairs == 1 && pa[0] == 1 && pb[0] == 2);
    CHECK_CODE(elo_matchmaker_len(queue, &len), ELO_RESULT_OK);
    CHECK(len == 1);
    elo_matchmaker_free(queue);
}

/* Regressions of the defects an outside audit found (issue 10). */
static void test_audit_regressions(void) {
    /* 1: a count that sizes a buffer is bounded (INT32_MAX candidates aborted the process). */
    EloMatchmaker *queue = NULL;
    CHECK_CODE(elo_matchmaker_new(100.0, 10.0, 400.0, INT32_MAX, 1, &queue), ELO_RESULT_INVALID_CONFIG);
    CHECK(queue == NULL);

    /* 2: settings that could overflow are refused; extreme inputs are refused, not inf. */
    static const char *const huge[] = {
        "{\"k_policy\":{\"policy\":\"constant\",\"k\":1e300}}",
        "{\"zero_sum_total\":1e300}",
        "{\"victory_bonus\":1e78}",
        "{\"expected_score\":{\"model\":\"logistic\",\"c\":1e-320}}",
        "{\"expected_score\":{\"model\":\"normal\",\"beta\":1e-320}}",
        "{\"zero_sum_total\":1000,\"min_rating\":0}",
        "[{\"model\":\"linear\",\"k\":0.5},5]",
    };
    static const EloResult huge_codes[] = {
        ELO_RESULT_INVALID_CONFIG, ELO_RESULT_INVALID_CONFIG, ELO_RESULT_INVALID_CONFIG, ELO_RESULT_INVALID_CONFIG,
        ELO_RESULT_INVALID_CONFIG, ELO_RESULT_INVALID_CONFIG, ELO_RESULT_INVALID_JSON,
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        EloConfig *config = NULL;
        CHECK_CODE(elo_config_from_json(huge[i], (int32_t)strlen(huge[i]), &config), huge_codes[i]);
        CHECK(config == NULL);
    }
    float a = 0.0f, b = 0.0f;
    CHECK_CODE(elo_update_player_rankings_score(3e38f, 3e38f, 3.4e38f, 1.0f, &a, &b), ELO_RESULT_OUT_OF_RANGE);
    CHECK(a == 0.0f && b == 0.0f);

    /* 7: 004's 3:1 win (K 32, L 4, V 2, 1000/1000): the share in the K term by default,
     * the result with points_k_term = "result"; the loser earns no victory bonus. */
    EloConfig *share = config_from("{\"score_share_bonus\":4,\"victory_bonus\":2}");
    EloConfig *result = config_from("{\"score_share_bonus\":4,\"victory_bonus\":2,\"points_k_term\":\"result\"}");
    CHECK_CODE(elo_rate_points(share, 1000.0f, 1000.0f, 3.0f, 1.0f, &a, &b), ELO_RESULT_OK);
    CHECK(a == 1013.0f && b == 993.0f);
    CHECK_CODE(elo_rate_points(result, 1000.0f, 1000.0f, 3.0f, 1.0f, &a, &b), ELO_RESULT_OK);
    CHECK(a == 1021.0f && b == 985.0f);

    /* 3: the total is the ratings summed after any sets. */
    EloPool *pool = NULL;
    CHECK_CODE(elo_pool_new(share, &pool), ELO_RESULT_OK);
    int32_t first = -1;
    CHECK_CODE(elo_pool_add_players(pool, 2, &first), ELO_RESULT_OK);
    EloPlayerState state;
    CHECK_CODE(elo_pool_get_player(pool, 0, &state), ELO_RESULT_OK);
    state.rating = 1e30f;
    CHECK_CODE(elo_pool_set_player(pool, 0, &state), ELO_RESULT_OUT_OF_RANGE);
    state.rating = 1e15f;
    CHECK_CODE(elo_pool_set_player(pool, 0, &state), ELO_RESULT_OK);
    state.rating = 1500.0f;
    CHECK_CODE(elo_pool_set_player(pool, 0, &state), ELO_RESULT_OK);
    double total = 0.0;
    CHECK_CODE(elo_pool_total(pool, &total), ELO_RESULT_OK);
    CHECK(total == 3000.0);

    /* 6: aliased outputs, paths that name no file. */
    const int32_t pa[1] = {0}, pb[1] = {1};
    const float score[1] = {1.0f};
    float out[2] = {0.0f, 0.0f};
    CHECK_CODE(elo_pool_apply(pool, pa, pb, score, 1, out, out, NULL), ELO_RESULT_OVERLAPPING_BUFFERS);
    CHECK_CODE(elo_pool_apply(pool, pa, pb, score, 1, out, out + 1, NULL), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_save_file(pool, "", 0), ELO_RESULT_INVALID_ARGUMENT);
    CHECK_CODE(elo_pool_save_file(pool, "d/..", 4), ELO_RESULT_INVALID_ARGUMENT);
    CHECK_CODE(elo_pool_load_file(pool, "/", 1), ELO_RESULT_INVALID_ARGUMENT);
    CHECK_CODE(elo_matchmaker_new(100.0, 10.0, 400.0, 4, 1, &queue), ELO_RESULT_OK);
    uint64_t ids[4];
    int32_t pairs = 0;
    CHECK_CODE(elo_matchmaker_tick(queue, 0.0, ids, ids, 2, &pairs), ELO_RESULT_OVERLAPPING_BUFFERS);
    elo_matchmaker_free(queue);
    elo_pool_free(pool);
    elo_config_free(share);
    elo_config_free(result);
}

/* Team matches and free-for-alls (docs/teams.md): values and refusals. */
static void test_groups(void) {
    EloConfig *config = config_from("{}");
    EloPlayerState members[4];
    CHECK_CODE(elo_player_new(config, &members[0]), ELO_RESULT_OK);
    members[1] = members[2] = members[3] = members[0];
    CHECK_CODE(elo_rate_teams(config, members, 2, 2, NULL, 1.0f), ELO_RESULT_OK);
    CHECK(members[0].rating == 1516.0f && members[3].rating == 1484.0f);
    CHECK_CODE(elo_rate_teams(config, members, 0, 4, NULL, 1.0f), ELO_RESULT_OUT_OF_RANGE);
    CHECK_CODE(elo_rate_teams(config, members, 2, 2, NULL, NAN), ELO_RESULT_NOT_FINITE);
    const int32_t places[4] = {1, 2, 2, 4}, bad_places[4] = {1, 2, 2, 5};
    CHECK_CODE(elo_rate_placements(config, members, 4, bad_places), ELO_RESULT_OUT_OF_RANGE);
    CHECK(members[0].rating == 1516.0f);
    CHECK_CODE(elo_rate_placements(config, members, 4, places), ELO_RESULT_OK);
    CHECK(members[1].games_played == 2);

    EloPool *pool = NULL;
    CHECK_CODE(elo_pool_new(config, &pool), ELO_RESULT_OK);
    int32_t first = 0;
    CHECK_CODE(elo_pool_add_players(pool, 4, &first), ELO_RESULT_OK);
    const int32_t twice[4] = {0, 1, 1, 2}, offsets[3] = {0, 2, 4};
    const float score[1] = {1.0f};
    CHECK_CODE(elo_pool_apply_teams(pool, twice, offsets, 1, NULL, score), ELO_RESULT_SAME_PLAYER);
    const int32_t team[4] = {0, 1, 2, 3};
    CHECK_CODE(elo_pool_apply_teams(pool, team, offsets, 1, NULL, score), ELO_RESULT_OK);
    const int32_t ffa_offsets[2] = {0, 4};
    CHECK_CODE(elo_pool_apply_placements(pool, team, ffa_offsets, 1, places), ELO_RESULT_OK);
    double total = 0.0;
    CHECK_CODE(elo_pool_total(pool, &total), ELO_RESULT_OK);
    CHECK(total == 6000.0);
    elo_pool_free(pool);

    EloMatchmaker *queue = NULL;
    CHECK_CODE(elo_matchmaker_new(100.0, 10.0, 400.0, 4, 1, &queue), ELO_RESULT_OK);
    for (uint64_t id = 0; id < 4; id++) {
        CHECK_CODE(elo_matchmaker_join(queue, id, 1500.0f + (float)id, 0.0), ELO_RESULT_OK);
    }
    uint64_t ids[4];
    int32_t formed = 0;
    CHECK_CODE(elo_matchmaker_tick_teams(queue, 1.0, 2, ids, 1, &formed), ELO_RESULT_OK);
    CHECK(formed == 1);
    elo_matchmaker_free(queue);
    elo_config_free(config);
}

/* Seasons: a promotion reported as an event, protected games, decay by the caller's
   clock, the season's end with records and a soft reset. */
static void test_seasons(void) {
    EloConfig *config = config_from(
        "{\"leagues\":[{\"name\":\"Silver\",\"min_rating\":0,\"k\":32},{\"name\":\"Gold\",\"min_rating\":1510,\"k\":32}],"
        "\"demotion_margin\":40,\"protected_games\":1,\"season_reset\":{\"keep\":0.5},"
        "\"decay\":{\"grace_days\":2,\"points_per_day\":3}}");
    EloPool *pool = NULL;
    int32_t first = -1;
    CHECK(elo_pool_new(config, &pool) == ELO_RESULT_OK);
    CHECK(elo_pool_add_players(pool, 2, &first) == ELO_RESULT_OK);
    CHECK(elo_pool_set_clock(pool, 100.0) == ELO_RESULT_OK);
    int32_t a[1] = {0}, b[1] = {1};
    float win[1] = {1.0f};
    EloLeagueChange events[2];
    int32_t event_count = -1;
    CHECK(elo_pool_apply_events(pool, a, b, win, 1, events, 2, &event_count) == ELO_RESULT_OK);
    CHECK(event_count == 1 && events[0].player == 0 && events[0].from_league == 0 && events[0].to_league == 1);
    EloPlayerState p;
    CHECK(elo_pool_get_player(pool, 0, &p) == ELO_RESULT_OK);
    CHECK(p.rating == 1516.0f && p.league == 1 && p.protected_games == 1 && p.last_played == 100.0);
    CHECK(p.season_games == 1 && p.season_wins == 1 && p.peak_rating == 1516.0f && p.peak_league == 1);
    /* A loss to 1500 and one more: protected first, then within the 40-point margin. */
    CHECK(elo_pool_apply_events(pool, b, a, win, 1, events, 2, &event_count) == ELO_RESULT_OK);
    CHECK(event_count == 0);
    CHECK(elo_pool_get_player(pool, 0, &p) == ELO_RESULT_OK);
    CHECK(p.league == 1 && p.protected_games == 0 && p.rating < 1510.0f);
    /* Ten days later: 8 days past the grace period, 24 points, down to the anchor 1500 at most. */
    int32_t decayed = -1;
    CHECK(elo_pool_apply_decay(pool, 100.0 + 10 * 86400.0, events, 2, &event_count, &decayed) == ELO_RESULT_OK);
    /* Player 1 (1501.47) decays to the anchor; player 0 (1498.53) is below it. */
    CHECK(decayed == 1 && event_count == 0);
    CHECK(elo_pool_get_player(pool, 1, &p) == ELO_RESULT_OK && p.rating == 1500.0f && p.league == 0);
    CHECK(elo_pool_get_player(pool, 0, &p) == ELO_RESULT_OK && p.rating < 1500.0f && p.league == 1);
    CHECK(elo_pool_apply_decay(pool, 50.0, NULL, 0, NULL, NULL) == ELO_RESULT_OUT_OF_RANGE);
    EloSeasonRecord records[2];
    CHECK(elo_pool_end_season(pool, records, 2, NULL, 0, events, 2, &event_count) == ELO_RESULT_OK);
    CHECK(records[0].games == 2 && records[0].wins == 1 && records[0].peak_rating == 1516.0f && records[0].league == 1);
    CHECK(event_count == 1 && events[0].player == 0 && events[0].to_league == 0);
    CHECK(elo_pool_get_player(pool, 1, &p) == ELO_RESULT_OK);
    CHECK(p.season_games == 0 && p.league == 0);
    CHECK(elo_pool_end_season(pool, records, 1, NULL, 0, NULL, 0, NULL) == ELO_RESULT_INVALID_LENGTH);
    /* The next season's rules: one league, K 10; ratings and records stay. */
    EloConfig *next = config_from("{\"leagues\":[{\"name\":\"All\",\"min_rating\":0,\"k\":10}],\"k_policy\":{\"policy\":\"league\"}}");
    float kept = 0.0f;
    CHECK(elo_pool_get_player(pool, 0, &p) == ELO_RESULT_OK);
    kept = p.rating;
    CHECK(elo_pool_set_config(pool, next) == ELO_RESULT_OK);
    CHECK(elo_pool_get_player(pool, 0, &p) == ELO_RESULT_OK && p.rating == kept && p.league == 0);
    elo_config_free(next);
    elo_pool_free(pool);
    elo_config_free(config);
}

/* What a newcomer meets (issue 19): a negative K in the mirror, league names, a length
   that counts the NUL, plain type errors, file errors naming the path, loading
   constructors, and comparing pools by their JSON. */
static void test_newcomer(void) {
    EloVector2 backwards = elo_update_player_rankings(1700.0f, 1300.0f, -32.0f, 0);
    CHECK(isnan(backwards.x) && isnan(backwards.y));

    EloConfig *config = config_from("{\"leagues\": [{\"name\": \"Bronze\", \"min_rating\": 0},"
                                    " {\"name\": \"Silver\", \"min_rating\": 1510}], \"demotion_margin\": 30}");
    CHECK(config != NULL);
    char name[16];
    int32_t len = -1;
    CHECK_CODE(elo_config_league_name(config, 1, NULL, 0, &len), ELO_RESULT_BUFFER_TOO_SMALL);
    CHECK(len == 6);
    CHECK_CODE(elo_config_league_name(config, 1, name, (int32_t)sizeof name, &len), ELO_RESULT_OK);
    CHECK(strcmp(name, "Silver") == 0);
    CHECK_CODE(elo_config_league_name(config, 2, name, (int32_t)sizeof name, &len), ELO_RESULT_INDEX_OUT_OF_RANGE);
    CHECK(strcmp(last_message(), "index 2 is not a league of the configuration (it has 2, indices from 0)") == 0);

    const char *typo = "{\"demotion_margin\": \"30\"}";
    EloConfig *bad = NULL;
    CHECK_CODE(elo_config_from_json(typo, (int32_t)strlen(typo), &bad), ELO_RESULT_INVALID_JSON);
    CHECK(strstr(last_message(), "demotion_margin: expected a number (got the string \"30\")") != NULL);
    CHECK_CODE(elo_config_from_json(typo, (int32_t)strlen(typo) + 1, &bad), ELO_RESULT_INVALID_LENGTH);
    CHECK(strstr(last_message(), "json ends with a NUL character") != NULL);
    CHECK(bad == NULL);
    float a = 0.0f, b = 0.0f;
    CHECK_CODE(elo_rate(config, 1500.0f, 1500.0f, 2.0f, &a, &b), ELO_RESULT_SCORE_OUT_OF_RANGE);
    CHECK(strcmp(last_message(), "score_a must be between 0 and 1 (got 2)") == 0);

    EloPool *pool = NULL;
    int32_t first = 0;
    CHECK_CODE(elo_pool_new(config, &pool), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_players(pool, 2, &first), ELO_RESULT_OK);
    const int32_t pa[1] = {0}, pb[1] = {1};
    const float win[1] = {1.0f};
    CHECK_CODE(elo_pool_apply(pool, pa, pb, win, 1, NULL, NULL, NULL), ELO_RESULT_OK);
    const char *nowhere = "no-such-folder-ranking-elo/ladder.json";
    CHECK_CODE(elo_pool_save_file(pool, nowhere, (int32_t)strlen(nowhere)), ELO_RESULT_IO);
    CHECK(strstr(last_message(), "cannot save the pool to \"no-such-folder-ranking-elo/ladder.json\": the folder"
                                 " \"no-such-folder-ranking-elo\" does not exist") != NULL);
    const char *missing = "no-such-save-ranking-elo.json";
    EloPool *loaded = NULL;
    CHECK_CODE(elo_pool_from_file(missing, (int32_t)strlen(missing), &loaded), ELO_RESULT_IO);
    CHECK(strstr(last_message(), "the file does not exist") != NULL && loaded == NULL);

    /* A pool from its save, with no configuration made first; equal pools, equal JSON. */
    static char save[8192], again[8192];
    int32_t save_len = 0, again_len = 0;
    CHECK_CODE(elo_pool_to_json(pool, save, (int32_t)sizeof save, &save_len), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_from_json(save, save_len, &loaded), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_to_json(loaded, again, (int32_t)sizeof again, &again_len), ELO_RESULT_OK);
    CHECK(again_len == save_len && strcmp(save, again) == 0);
    const char *file = "ranking-elo-c-test-ladder.json";
    CHECK_CODE(elo_pool_save_file(pool, file, (int32_t)strlen(file)), ELO_RESULT_OK);
    EloPool *from_file = NULL;
    CHECK_CODE(elo_pool_from_file(file, (int32_t)strlen(file), &from_file), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_to_json(from_file, again, (int32_t)sizeof again, &again_len), ELO_RESULT_OK);
    CHECK(strcmp(save, again) == 0);
    remove(file);
    elo_pool_free(from_file);
    elo_pool_free(loaded);
    elo_pool_free(pool);
    elo_config_free(config);
}

static void ratings_of(EloPool *pool, float *out, int32_t count) {
    CHECK_CODE(elo_pool_get_ratings(pool, 0, count, out), ELO_RESULT_OK);
}

/* Issue 18: a hostile client's inputs to the team, free-for-all and season functions.
   Huge sizes are given with small real buffers: the calls must refuse them from the
   sizes and offsets alone, reading nothing beyond (valgrind checks that). */
static void test_issue_18_audit(void) {
    EloConfig *config = config_from("{}");
    EloPlayerState members[4];
    CHECK_CODE(elo_player_new(config, &members[0]), ELO_RESULT_OK);
    members[1] = members[2] = members[3] = members[0];

    /* Defect 1: a 2v2 in a zero-sum pool (T 6000) is 1516, 1516, 1484, 1484. */
    EloConfig *zero_sum = config_from("{\"zero_sum_total\": 6000}");
    EloPool *pool = NULL;
    int32_t first = 0;
    CHECK_CODE(elo_pool_new(zero_sum, &pool), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_players(pool, 4, &first), ELO_RESULT_OK);
    const int32_t team[4] = {0, 1, 2, 3}, offsets[3] = {0, 2, 4};
    const float win[1] = {1.0f};
    CHECK_CODE(elo_pool_apply_teams(pool, team, offsets, 1, NULL, win), ELO_RESULT_OK);
    float r[4];
    ratings_of(pool, r, 4);
    CHECK(r[0] == 1516.0f && r[1] == 1516.0f && r[2] == 1484.0f && r[3] == 1484.0f);
    double total = 0.0;
    CHECK_CODE(elo_pool_total(pool, &total), ELO_RESULT_OK);
    CHECK(total == 6000.0);

    /* The set player total: a set rebalances at once (1600 of T 6000 over four). */
    EloPlayerState set = members[0];
    set.rating = 1600.0f;
    CHECK_CODE(elo_pool_set_player(pool, 0, &set), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_total(pool, &total), ELO_RESULT_OK);
    CHECK(total == 6000.0);
    ratings_of(pool, r, 4);
    CHECK(r[0] == 1579.0f && r[1] == 1495.0f);

    /* Defect 2: sizes near INT32_MAX, refused before anything is read or copied. */
    CHECK_CODE(elo_rate_teams(config, members, INT32_MAX - 1, 1, NULL, 1.0f), ELO_RESULT_OUT_OF_RANGE);
    CHECK_CODE(elo_rate_teams(config, members, 1, INT32_MAX - 1, NULL, 1.0f), ELO_RESULT_OUT_OF_RANGE);
    const int32_t places[4] = {1, 2, 3, 4};
    CHECK_CODE(elo_rate_placements(config, members, INT32_MAX, places), ELO_RESULT_OUT_OF_RANGE);
    const int32_t huge_team[3] = {0, 1, INT32_MAX}, huge_ffa[2] = {0, INT32_MAX};
    CHECK_CODE(elo_pool_apply_teams(pool, team, huge_team, 1, NULL, win), ELO_RESULT_OUT_OF_RANGE);
    CHECK(strstr(last_message(), "matches[0]") != NULL && strstr(last_message(), "team_b") != NULL);
    CHECK_CODE(elo_pool_apply_placements(pool, team, huge_ffa, 1, places), ELO_RESULT_OUT_OF_RANGE);
    const int32_t falling[3] = {0, 2, 1};
    CHECK_CODE(elo_pool_apply_teams(pool, team, falling, 1, NULL, win), ELO_RESULT_INVALID_LENGTH);
    /* A bad pair changes nothing either (tests/c_abi.rs gives lists of INT32_MAX
       matches in sparse buffers). */
    const int32_t same[1] = {0};
    CHECK_CODE(elo_pool_apply(pool, same, same, win, 1, NULL, NULL, NULL), ELO_RESULT_SAME_PLAYER);
    float after[4];
    ratings_of(pool, after, 4);
    CHECK(memcmp(r, after, sizeof r) == 0);

    /* Defect 3: every output, counts included, is checked for overlap. */
    EloLeagueChange events[8];
    int32_t x = -7;
    CHECK_CODE(elo_pool_apply_decay(pool, 1.0, NULL, 0, &x, &x), ELO_RESULT_OVERLAPPING_BUFFERS);
    CHECK(x == -7);
    int32_t player_a[2] = {0, 2};
    const int32_t player_b[2] = {1, 3};
    const float scores[2] = {1.0f, 0.0f};
    CHECK_CODE(elo_pool_apply_events(pool, player_a, player_b, scores, 2, events, 8, &player_a[0]), ELO_RESULT_OVERLAPPING_BUFFERS);
    CHECK(player_a[0] == 0);
    int32_t team_copy[4] = {0, 1, 2, 3};
    CHECK_CODE(elo_pool_apply_teams_events(pool, team_copy, offsets, 1, NULL, win, events, 8, &team_copy[0]), ELO_RESULT_OVERLAPPING_BUFFERS);
    EloSeasonRecord records[4];
    CHECK_CODE(elo_pool_end_season(pool, records, 4, NULL, 0, events, 8, (int32_t *)(void *)&records[1].games), ELO_RESULT_OVERLAPPING_BUFFERS);
    CHECK_CODE(elo_pool_apply_events(pool, player_a, player_b, scores, 2, NULL, 4, NULL), ELO_RESULT_NULL_POINTER);
    CHECK(strstr(last_message(), "out_events must not be NULL") != NULL);
    ratings_of(pool, after, 4);
    CHECK(memcmp(r, after, sizeof r) == 0);
    elo_pool_free(pool);
    elo_config_free(zero_sum);

    /* Defects 4 and 5: decay stops at the floor after rounding, and at min_rating as at a
       floor, so daily calls give what one call gives. */
    EloConfig *floored = config_from("{\"rounding\":\"half_away_from_zero\",\"decay\":{\"grace_days\":0,\"points_per_day\":100,\"floor\":1550.5}}");
    EloConfig *min_rating = config_from("{\"decay\":{\"grace_days\":0,\"points_per_day\":10,\"min_rating\":1580}}");
    EloPool *once = NULL, *daily = NULL, *floor_pool = NULL;
    EloPlayerState high = members[0];
    high.rating = 1600.0f;
    CHECK_CODE(elo_pool_new(floored, &floor_pool), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_player_states(floor_pool, &high, 1, &first), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_apply_decay(floor_pool, 10 * 86400.0, NULL, 0, NULL, NULL), ELO_RESULT_OK);
    ratings_of(floor_pool, r, 1);
    CHECK(r[0] == 1550.5f);
    CHECK_CODE(elo_pool_new(min_rating, &once), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_new(min_rating, &daily), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_player_states(once, &high, 1, &first), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_player_states(daily, &high, 1, &first), ELO_RESULT_OK);
    for (int day = 1; day <= 10; day++) {
        CHECK_CODE(elo_pool_apply_decay(daily, day * 86400.0, NULL, 0, NULL, NULL), ELO_RESULT_OK);
    }
    CHECK_CODE(elo_pool_apply_decay(once, 10 * 86400.0, NULL, 0, NULL, NULL), ELO_RESULT_OK);
    ratings_of(once, r, 1);
    ratings_of(daily, after, 1);
    CHECK(r[0] == 1580.0f && after[0] == 1580.0f);
    elo_pool_free(once);
    elo_pool_free(daily);
    elo_pool_free(floor_pool);
    elo_config_free(floored);
    elo_config_free(min_rating);

    /* Defect 6: documented bounds are inclusive. */
    const char *at_bounds[4] = {"{\"demotion_margin\": 1e15}", "{\"decay\": {\"points_per_day\": 1e15}}",
                                "{\"zero_sum_total\": -1e15}", "{\"max_rating_difference\": 2e15}"};
    for (int i = 0; i < 4; i++) {
        EloConfig *bound = NULL;
        CHECK_CODE(elo_config_from_json(at_bounds[i], (int32_t)strlen(at_bounds[i]), &bound), ELO_RESULT_OK);
        elo_config_free(bound);
    }
    const char *beyond = "{\"demotion_margin\": 1000000000000000.2}";
    EloConfig *refused = NULL;
    CHECK_CODE(elo_config_from_json(beyond, (int32_t)strlen(beyond), &refused), ELO_RESULT_INVALID_CONFIG);
    CHECK(refused == NULL);

    /* Defect 7: a NaN or -inf peak rating is refused wherever a state enters. */
    EloPlayerState bad = members[0];
    bad.peak_rating = NAN;
    EloPlayerState four[4] = {bad, members[1], members[2], members[3]};
    CHECK_CODE(elo_rate_teams(config, four, 2, 2, NULL, 1.0f), ELO_RESULT_NOT_FINITE);
    CHECK(strstr(last_message(), "peak_rating") != NULL);
    four[0].peak_rating = -INFINITY;
    CHECK_CODE(elo_rate_placements(config, four, 4, places), ELO_RESULT_NOT_FINITE);
    CHECK_CODE(elo_pool_new(config, &pool), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_add_players(pool, 2, &first), ELO_RESULT_OK);
    CHECK_CODE(elo_pool_set_player(pool, 0, &bad), ELO_RESULT_NOT_FINITE);
    elo_pool_free(pool);
    elo_config_free(config);
}

int main(void) {
    printf("ranking-elo %s\n", elo_version());
    test_tutorial_mirrors();
    test_configured_single_calls();
    test_batch();
    test_errors();
    test_json_round_trip();
    test_pool_and_matchmaker();
    test_audit_regressions();
    test_groups();
    test_seasons();
    test_newcomer();
    test_issue_18_audit();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
