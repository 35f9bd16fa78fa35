#!/usr/bin/env python3
"""Reference values for team matches and free-for-alls, computed independently of the
engine (plain Python floats and math, from the formulas in docs/teams.md), written to
unity/Tests/Runtime/Vectors~/RankingEloTeamVectors.txt. Rust (tests/team_vectors.rs), C
(tests/fixtures/c/replay_vectors.c) and C# (ReferenceVectorReplay) replay the file and require the
same ratings. Every configuration rounds rating changes half away from zero, so the
expected ratings are whole numbers that any correct implementation reproduces exactly.

usage: python3 tools/reference/team_vectors.py > unity/Tests/Runtime/Vectors~/RankingEloTeamVectors.txt
"""
import math
import random

CONFIGS = [
    '{"rounding":"half_away_from_zero"}',
    '{"rounding":"half_away_from_zero","team_rating":"sum"}',
    '{"rounding":"half_away_from_zero","team_rating":"weighted_mean","team_split":"weights"}',
    '{"rounding":"half_away_from_zero","k_policy":{"policy":"constant","k":24},"victory_bonus":2,"score_share_bonus":4}',
]
SETTINGS = [
    dict(k=32.0, rating="mean", split="equal", L=0.0, V=0.0),
    dict(k=32.0, rating="sum", split="equal", L=0.0, V=0.0),
    dict(k=32.0, rating="weighted_mean", split="weights", L=0.0, V=0.0),
    dict(k=24.0, rating="mean", split="equal", L=4.0, V=2.0),
]


def expected(ra, rb):
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))


def round_half_away(x):
    return math.copysign(math.floor(abs(x) + 0.5), x)


def team_rating(s, ratings, weights):
    if s["rating"] == "sum":
        return sum(ratings)
    if s["rating"] == "weighted_mean":
        return sum(w * r for w, r in zip(weights, ratings)) / sum(weights)
    return sum(ratings) / len(ratings)


def result_of(score):
    return 1.0 if score > 0.5 else (0.5 if score == 0.5 else 0.0)


def rate_team(s, own, own_w, other, other_w, score):
    """New ratings of `own`'s members after scoring `score` against `other`."""
    e = expected(team_rating(s, own, own_w), team_rating(s, other, other_w))
    out = []
    for i, r in enumerate(own):
        split = len(own) * own_w[i] / sum(own_w) if s["split"] == "weights" else 1.0
        delta = s["k"] * (score - e) * split + s["L"] * score + s["V"] * result_of(score)
        out.append(r + round_half_away(delta))
    return out


def rate_ffa(s, ratings, places):
    n = len(ratings)
    out = []
    for i in range(n):
        total, beaten, tied = 0.0, 0, 0
        for j in range(n):
            if j == i:
                continue
            score = 1.0 if places[i] < places[j] else (0.5 if places[i] == places[j] else 0.0)
            beaten += places[i] < places[j]
            tied += places[i] == places[j]
            total += s["k"] * (score - expected(ratings[i], ratings[j]))
        share = (beaten + tied / 2.0) / (n - 1)
        delta = total / (n - 1) + s["L"] * share + s["V"] * share
        out.append(ratings[i] + round_half_away(delta))
    return out


def fmt(values):
    return " ".join("%g" % v for v in values)


def main():
    rng = random.Random(12)
    print("# ranking-elo team and free-for-all reference values, computed by tools/reference/team_vectors.py")
    print("# config <index> <json>")
    print("# team <config> <count_a> <count_b> <score_a> <weights, comma-separated, or -> <ratings A then B> => <new ratings>")
    print("# ffa <config> <count> <places...> <ratings...> => <new ratings...>")
    for i, c in enumerate(CONFIGS):
        print("config %d %s" % (i, c))

    def team_case(ci, a, b, score, weights=None):
        s = SETTINGS[ci]
        wa = weights[:len(a)] if weights else [1.0] * len(a)
        wb = weights[len(a):] if weights else [1.0] * len(b)
        new = rate_team(s, a, wa, b, wb, score) + rate_team(s, b, wb, a, wa, 1.0 - score)
        w = ",".join("%g" % x for x in weights) if weights else "-"
        print("team %d %d %d %g %s %s => %s" % (ci, len(a), len(b), score, w, fmt(a + b), fmt(new)))

    # 2v2 equal teams: a win, a draw, a loss, under each aggregate and with bonuses.
    for ci in (0, 1, 3):
        for score in (1.0, 0.5, 0.0):
            team_case(ci, [1500.0, 1500.0], [1500.0, 1500.0], score)
            team_case(ci, [1620.0, 1480.0], [1555.0, 1490.0], score)
    # 1v3 uneven sizes (mean and sum).
    for ci in (0, 1):
        for score in (1.0, 0.0, 0.5):
            team_case(ci, [1800.0], [1500.0, 1420.0, 1610.0], score)
            team_case(ci, [1500.0], [500.0, 500.0, 500.0], score)
    # 5v5 with weights (time played).
    for _ in range(6):
        a = [float(rng.randrange(1200, 2000)) for _ in range(5)]
        b = [float(rng.randrange(1200, 2000)) for _ in range(5)]
        weights = [float(rng.randrange(1, 31)) for _ in range(10)]
        team_case(2, a, b, rng.choice([1.0, 0.0, 0.5]), weights)
        team_case(0, a, b, rng.choice([1.0, 0.0, 0.5]))
    # 4-player free-for-all with a tie.
    for ci in (0, 3):
        for ratings, places in (
            ([1500.0, 1500.0, 1500.0, 1500.0], [1, 2, 2, 4]),
            ([1700.0, 1450.0, 1600.0, 1380.0], [3, 1, 1, 4]),
            ([1900.0, 1200.0, 1500.0, 1500.0], [2, 1, 4, 3]),
        ):
            print("ffa %d %d %s %s => %s" % (ci, len(ratings), fmt(places), fmt(ratings), fmt(rate_ffa(SETTINGS[ci], ratings, places))))
    # 100-player free-for-all (a battle royale), places with some ties.
    for ci in (0, 3):
        ratings = [float(rng.randrange(800, 2400)) for _ in range(100)]
        order = list(range(100))
        rng.shuffle(order)
        places = [0] * 100
        place = 1
        for rank, index in enumerate(order):
            places[index] = place if rank % 7 != 6 else places[order[rank - 1]]
            place = rank + 2
        print("ffa %d %d %s %s => %s" % (ci, 100, fmt(places), fmt(ratings), fmt(rate_ffa(SETTINGS[ci], ratings, places))))


main()
