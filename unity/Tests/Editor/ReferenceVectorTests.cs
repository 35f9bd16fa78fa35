using System;
using System.Collections.Generic;
using System.IO;
using NUnit.Framework;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo.Tests
{
    /// <summary>
    /// Replays the Rust engine's reference vectors (Data/reference_vectors.txt) through the C#
    /// wrapper: every result must have the same bits (SPEC section 10). Run inside Unity on a
    /// device or in the Editor, this checks determinism on that platform too.
    /// </summary>
    [TestFixture]
    public class ReferenceVectorTests
    {
        private static string VectorFile()
        {
            string fromEnvironment = Environment.GetEnvironmentVariable("RANKING_ELO_REFERENCE_VECTORS");
            if (!string.IsNullOrEmpty(fromEnvironment)) return fromEnvironment;
            return Path.GetFullPath("Packages/com.rankingelo.engine/Tests/Editor/Data/reference_vectors.txt");
        }

        private static float Float(string hex)
        {
            return BitConverter.ToSingle(BitConverter.GetBytes(Convert.ToUInt32(hex, 16)), 0);
        }

        [Test]
        public void EveryVectorHasTheRustBits()
        {
            string path = VectorFile();
            Assert.IsTrue(File.Exists(path), "reference vectors not found at " + path);
            var configs = new Dictionary<string, EloRules>();
            int checkedCount = 0;
            try
            {
                foreach (string line in File.ReadAllLines(path))
                {
                    if (line.Length == 0 || line[0] == '#') continue;
                    string[] f = line.Split(' ');
                    switch (f[0])
                    {
                        case "config":
                            configs[f[1]] = EloRules.FromJson(line.Substring(line.IndexOf('{')));
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
            Assert.Greater(checkedCount, 600);
        }

        private static string Hex(float value)
        {
            return RankingELOTests.Bits(value).ToString("x8");
        }
    }
}
