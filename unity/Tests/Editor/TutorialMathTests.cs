using System;
using NUnit.Framework;
using RankingElo.Native;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#endif

namespace RankingElo.Tests
{
    /// <summary>
    /// The tutorial methods' managed path gives the native library's bits: its constants are
    /// the engine's, and over millions of inputs (realistic ratings, the exponential's clamp,
    /// huge and tiny values, signed zeros, subnormals, NaN and the infinities, random bit
    /// patterns) both answers are the same bits, through <see cref="TutorialMath"/> and
    /// through the public <see cref="RankingELO"/> methods.
    /// </summary>
    [TestFixture]
    public class TutorialMathTests
    {
        private static long Bits(double value)
        {
            return BitConverter.DoubleToInt64Bits(value);
        }

        private static unsafe int Bits(float value)
        {
            return *(int*)&value;
        }

        private static unsafe float Float(int bits)
        {
            return *(float*)&bits;
        }

        /// <summary>The constants are the engine's bits, and the coefficients are its recurrence <c>(ln 2)^k / k!</c>.</summary>
        [Test]
        public void TheConstantsAreTheEnginesBits()
        {
            Assert.AreEqual(0x3F81021E1A8B49E2L, Bits(TutorialMath.TutorialScale), "log2(10) / 400");
            Assert.AreEqual(0x4338000000000000L, Bits(TutorialMath.RoundingShifter));
            double ln2 = BitConverter.Int64BitsToDouble(0x3FE62E42FEFA39EFL);
            double log2Of10 = BitConverter.Int64BitsToDouble(0x400A934F0979A371L);
            Assert.AreEqual(Bits(log2Of10 / 400.0), Bits(TutorialMath.TutorialScale));
            double[] coefficients = { TutorialMath.C1, TutorialMath.C2, TutorialMath.C3, TutorialMath.C4, TutorialMath.C5, TutorialMath.C6, TutorialMath.C7, TutorialMath.C8 };
            double term = 1.0;
            for (int k = 0; k < coefficients.Length; k++)
            {
                term = term * ln2 / (k + 1);
                Assert.AreEqual(Bits(term), Bits(coefficients[k]), "coefficient of f^" + (k + 1));
            }
            Assert.AreEqual(0x7FC00000, Bits(TutorialMath.NaN));
        }

        /// <summary>2^n is exact at the integers, as the engine's is.</summary>
        [Test]
        public void Exp2IsExactAtIntegers()
        {
            for (int n = -200; n <= 200; n++)
            {
                Assert.AreEqual((long)(n + 1023) << 52, Bits(TutorialMath.Exp2(n)), "2^" + n);
            }
        }

        private sealed class Inputs
        {
            private readonly System.Random random;
            private static readonly float[] Special =
            {
                0f, -0f, 1f, -1f, 1500f, 1000f, 400f, 24082f, -24082f, 24083f, 80000f, -80000f, 1e15f, -1e15f, 3.4028235e38f, -3.4028235e38f,
                1.4e-45f, -1.4e-45f, 1.17549435e-38f, float.PositiveInfinity, float.NegativeInfinity, float.NaN, float.Epsilon, 16777216f, 16777217f, 0.5f,
            };

            internal Inputs(int seed)
            {
                random = new System.Random(seed);
            }

            /// <summary>A rating: mostly realistic, sometimes far apart, special or any bit pattern.</summary>
            internal float Rating()
            {
                switch (random.Next(8))
                {
                    case 0:
                        return Special[random.Next(Special.Length)];
                    case 1:
                        return Float(random.Next() ^ (random.Next(2) << 31));
                    case 2:
                        return (float)((random.NextDouble() - 0.5) * 200000.0);
                    case 3:
                        return (float)Math.Round(random.NextDouble() * 3000.0);
                    default:
                        return (float)(random.NextDouble() * 3000.0);
                }
            }

            /// <summary>A multiplier: mostly realistic, sometimes zero, negative, huge or special.</summary>
            internal float Multiplier()
            {
                switch (random.Next(8))
                {
                    case 0:
                        return Special[random.Next(Special.Length)];
                    case 1:
                        return Float(random.Next() ^ (random.Next(2) << 31));
                    case 2:
                        return -(float)(random.NextDouble() * 64.0);
                    default:
                        return (float)(random.NextDouble() * 64.0);
                }
            }

            internal bool Win()
            {
                return random.Next(2) == 1;
            }
        }

        /// <summary>Two million probabilities and updates: the managed path and the native functions agree bit for bit.</summary>
        [Test]
        public void TheManagedPathGivesTheNativeBits()
        {
            var inputs = new Inputs(20261127);
            int checkedPairs = 0;
            for (int i = 0; i < 2000000; i++)
            {
                float a = inputs.Rating(), b = inputs.Rating(), k = inputs.Multiplier();
                bool win = inputs.Win();
                float probability = TutorialMath.Probability(a, b);
                float nativeProbability = NativeMethods.elo_get_probability_winning(a, b);
                if (Bits(probability) != Bits(nativeProbability))
                {
                    Assert.Fail(string.Format("P({0:R}, {1:R}): managed {2:R} (0x{3:X8}), native {4:R} (0x{5:X8})", a, b, probability, Bits(probability), nativeProbability, Bits(nativeProbability)));
                }
                Vector2 managed = TutorialMath.Update(a, b, k, win);
                float x = managed.x, y = managed.y;
                EloVector2 native = NativeMethods.elo_update_player_rankings(a, b, k, win ? (byte)1 : (byte)0);
                if (Bits(x) != Bits(native.x) || Bits(y) != Bits(native.y))
                {
                    Assert.Fail(string.Format("update({0:R}, {1:R}, K {2:R}, win {3}): managed ({4:R}, {5:R}), native ({6:R}, {7:R})", a, b, k, win, x, y, native.x, native.y));
                }
                checkedPairs++;
            }
            Assert.AreEqual(2000000, checkedPairs);
        }

        /// <summary>Signed zeros against certainty: a change of -0 must become +0 as the engine adds +0 (a JIT that folds <c>x + 0.0</c> keeps -0).</summary>
        [Test]
        public void SignedZerosGiveTheNativeBits()
        {
            float[] ratings = { 0f, -0f, 88814.22f, -88814.22f, 1e15f, -1e15f, 1500f };
            float[] multipliers = { 0f, -0f, 32f, 51.5198479f };
            foreach (float a in ratings)
            {
                foreach (float b in ratings)
                {
                    foreach (float k in multipliers)
                    {
                        foreach (bool win in new[] { true, false })
                        {
                            Vector2 managed = TutorialMath.Update(a, b, k, win);
                            float x = managed.x, y = managed.y;
                            EloVector2 native = NativeMethods.elo_update_player_rankings(a, b, k, win ? (byte)1 : (byte)0);
                            Assert.AreEqual(Bits(native.x), Bits(x), "x of update({0:R}, {1:R}, {2:R}, {3})", a, b, k, win);
                            Assert.AreEqual(Bits(native.y), Bits(y), "y of update({0:R}, {1:R}, {2:R}, {3})", a, b, k, win);
                            Vector2 method = RankingELO.UpdatePlayerRankings(a, b, k, win);
                            Assert.AreEqual(Bits(native.x), Bits(method.x));
                            Assert.AreEqual(Bits(native.y), Bits(method.y));
                        }
                    }
                }
            }
        }

        /// <summary>The public methods give the native functions' bits, whichever path this runtime takes.</summary>
        [Test]
        public void ThePublicMethodsGiveTheNativeBits()
        {
            var inputs = new Inputs(7);
            for (int i = 0; i < 200000; i++)
            {
                float a = inputs.Rating(), b = inputs.Rating(), k = inputs.Multiplier();
                bool win = inputs.Win();
                Assert.AreEqual(Bits(NativeMethods.elo_get_probability_winning(a, b)), Bits(RankingELO.GetProbabilityWinning(a, b)));
                Vector2 mine = RankingELO.UpdatePlayerRankings(a, b, k, win);
                EloVector2 native = NativeMethods.elo_update_player_rankings(a, b, k, win ? (byte)1 : (byte)0);
                Assert.AreEqual(Bits(native.x), Bits(mine.x));
                Assert.AreEqual(Bits(native.y), Bits(mine.y));
            }
        }

        /// <summary>Mono on x86-64 takes the managed path (the one this suite checks); other architectures and IL2CPP call the library.</summary>
        [Test]
        public void MonoOnX64TakesTheManagedPath()
        {
#if ENABLE_IL2CPP
            Assert.IsFalse(TutorialMath.Exact);
#else
            Assert.AreEqual(System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture == System.Runtime.InteropServices.Architecture.X64, TutorialMath.Exact);
#endif
        }
    }
}
