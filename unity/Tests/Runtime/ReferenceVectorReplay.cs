using System;
using System.Collections.Generic;
using System.Globalization;
using NUnit.Framework;

namespace RankingElo.Tests
{
    /// <summary>
    /// Replays the Rust engine's reference vectors (<c>Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt</c>:
    /// inputs and the exact output bits) through the C# API, asserting every bit (the same bits on every
    /// platform). Used by the Edit Mode test (reading the file) and by the Play Mode test that runs on
    /// devices (loading it as a <c>TextAsset</c>).
    /// </summary>
    public static class ReferenceVectorReplay
    {
        /// <summary>The resource name of the vectors (<c>Resources.Load&lt;TextAsset&gt;</c>).</summary>
        public const string ResourceName = "RankingEloReferenceVectors";

        /// <summary>The resource name of the team and free-for-all vectors (computed independently of the engine).</summary>
        public const string TeamResourceName = "RankingEloTeamVectors";

        /// <summary>The resource name of the FIDE vectors (FIDE's table, the rounding target, rating periods).</summary>
        public const string FideResourceName = "RankingEloFideVectors";

        /// <summary>Checks every team and free-for-all line of <paramref name="text"/>; returns how many were checked.</summary>
        /// <param name="text">The team vectors file's content.</param>
        /// <returns>The number of matches checked.</returns>
        public static int ReplayGroups(string text)
        {
            var configs = new Dictionary<string, EloRules>();
            int checkedCount = 0;
            try
            {
                foreach (string raw in text.Split('\n'))
                {
                    string line = raw.TrimEnd('\r');
                    if (line.Length == 0 || line[0] == '#') continue;
                    if (ReadConfig(line, configs)) continue;
                    int arrow = line.IndexOf(" => ", StringComparison.Ordinal);
                    string[] f = line.Substring(0, arrow).Split(' ');
                    string[] expected = line.Substring(arrow + 4).Split(' ');
                    EloRules rules = configs[f[1]];
                    PlayerState[] players;
                    if (f[0] == "team")
                    {
                        int countA = int.Parse(f[2], CultureInfo.InvariantCulture), n = countA + int.Parse(f[3], CultureInfo.InvariantCulture);
                        float score = float.Parse(f[4], CultureInfo.InvariantCulture);
                        float[] weights = f[5] == "-" ? new float[0] : Array.ConvertAll(f[5].Split(','), w => float.Parse(w, CultureInfo.InvariantCulture));
                        players = States(f, 6, n);
                        rules.RateTeams(players, countA, score, weights);
                    }
                    else
                    {
                        int n = int.Parse(f[2], CultureInfo.InvariantCulture);
                        int[] places = new int[n];
                        for (int i = 0; i < n; i++) places[i] = int.Parse(f[3 + i], CultureInfo.InvariantCulture);
                        players = States(f, 3 + n, n);
                        rules.RatePlacements(players, places);
                    }
                    for (int i = 0; i < players.Length; i++)
                    {
                        Assert.AreEqual(Hex(float.Parse(expected[i], CultureInfo.InvariantCulture)), Hex(players[i].Rating), line + " (player " + i + ")");
                    }
                    checkedCount++;
                }
            }
            finally
            {
                foreach (EloRules rules in configs.Values) rules.Dispose();
            }
            return checkedCount;
        }

        /// <summary>A <c>config &lt;index&gt; &lt;json&gt;</c> line: the rules into <paramref name="configs"/>; whether the line was one.</summary>
        private static bool ReadConfig(string line, Dictionary<string, EloRules> configs)
        {
            if (!line.StartsWith("config ", StringComparison.Ordinal)) return false;
            string[] head = line.Split(new[] { ' ' }, 3);
            configs[head[1]] = EloRules.FromJson(head[2]);
            return true;
        }

        private static PlayerState[] States(string[] fields, int start, int count)
        {
            var players = new PlayerState[count];
            for (int i = 0; i < count; i++) players[i] = new PlayerState(float.Parse(fields[start + i], CultureInfo.InvariantCulture));
            return players;
        }

        /// <summary>Checks every line of <paramref name="text"/>; returns how many were checked.</summary>
        /// <param name="text">The vectors file's content.</param>
        /// <returns>The number of vectors checked.</returns>
        public static int Replay(string text)
        {
            var configs = new Dictionary<string, EloRules>();
            int checkedCount = 0;
            try
            {
                foreach (string raw in text.Split('\n'))
                {
                    string line = raw.TrimEnd('\r');
                    if (line.Length == 0 || line[0] == '#') continue;
                    string[] f = line.Split(' ');
                    switch (f[0])
                    {
                        case "config":
                            ReadConfig(line, configs);
                            break;
                        case "rate":
                        {
                            EloRules rules = configs[f[1]];
                            float a = Float(f[2]), b = Float(f[3]), s = Float(f[4]);
                            RatingPair got = f[5] == "-" ? rules.Rate(a, b, s) : rules.RateWithK(a, b, s, Float(f[5]), Float(f[5]));
                            Assert.AreEqual(f[6], Hex(got.A), line);
                            Assert.AreEqual(f[7], Hex(got.B), line);
                            break;
                        }
                        case "expected":
                            Assert.AreEqual(f[4], Hex(configs[f[1]].ExpectedScore(Float(f[2]), Float(f[3]))), line);
                            break;
                        case "period":
                            ReplayPeriod(configs[f[1]], f, line);
                            break;
                        case "mirror":
                        {
                            float a = Float(f[1]), b = Float(f[2]), k = Float(f[3]);
                            Assert.AreEqual(f[5], Hex(RankingELO.GetProbabilityWinning(a, b)), line);
                            var v = RankingELO.UpdatePlayerRankings(a, b, k, f[4] == "1");
                            Assert.AreEqual(f[6], Hex(v.x), line);
                            Assert.AreEqual(f[7], Hex(v.y), line);
                            break;
                        }
                        default:
                            Assert.Fail("unknown line: " + line);
                            break;
                    }
                    checkedCount++;
                }
            }
            finally
            {
                foreach (EloRules rules in configs.Values) rules.Dispose();
            }
            return checkedCount;
        }

        /// <summary>A <c>period</c> line: four new players with the listed ratings rate six matches as one period.</summary>
        private static void ReplayPeriod(EloRules rules, string[] f, string line)
        {
            const int players = 4, matches = 6;
            using (var pool = new RatingPool(rules))
            {
                var states = new PlayerState[players];
                for (int p = 0; p < players; p++)
                {
                    states[p] = rules.NewPlayer();
                    states[p].Rating = Float(f[2 + p]);
                }
                pool.AddPlayers(states);
                int[] a = new int[matches], b = new int[matches];
                float[] s = new float[matches];
                for (int m = 0; m < matches; m++)
                {
                    a[m] = int.Parse(f[2 + players + 3 * m], CultureInfo.InvariantCulture);
                    b[m] = int.Parse(f[3 + players + 3 * m], CultureInfo.InvariantCulture);
                    s[m] = Float(f[4 + players + 3 * m]);
                }
                pool.RatePeriod(a, b, s);
                float[] ratings = new float[players];
                pool.GetRatings(ratings);
                for (int p = 0; p < players; p++)
                {
                    Assert.AreEqual(f[2 + players + 3 * matches + p], Hex(ratings[p]), line + " (player " + p + ")");
                }
            }
        }

        private static float Float(string hex)
        {
            return BitConverter.ToSingle(BitConverter.GetBytes(Convert.ToUInt32(hex, 16)), 0);
        }

        private static string Hex(float value)
        {
            return BitConverter.ToUInt32(BitConverter.GetBytes(value), 0).ToString("x8");
        }
    }
}
