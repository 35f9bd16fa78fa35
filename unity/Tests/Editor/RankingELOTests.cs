using System;
using System.Globalization;
using NUnit.Framework;
#if UNITY_5_3_OR_NEWER
using UnityEngine;
#else
using RankingElo;
#endif

namespace RankingElo.Tests
{
    /// <summary>The tutorial's calls, unchanged, against the native mirror.</summary>
    [TestFixture]
    public class RankingELOTests
    {
        /// <summary>Tutorial ports that pass 0 or 1 compile (no CS0121 ambiguity) and mean loss or win.</summary>
        [Test]
        public void WholeNumberScoresCompileAndMeanLossOrWin()
        {
            Vector2 loss = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, 0);
            Vector2 win = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, 1);
            Assert.AreEqual(Bits(RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false).x), Bits(loss.x));
            Assert.AreEqual(Bits(RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, true).y), Bits(win.y));
            Assert.Throws<ArgumentOutOfRangeException>(() => RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, 2));
        }

        [Test]
        public void TutorialCallsGiveTheSpecReferenceValues()
        {
            // The tutorial's own calling code, verbatim.
            float probability = RankingELO.GetProbabilityWinning(1700f, 1300f);
            Vector2 newRatings = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false);

            Assert.AreEqual("0.9090909", probability.ToString(CultureInfo.InvariantCulture));
            Assert.AreEqual(1.0 / 1.1, probability, 1e-7);
            Assert.AreEqual(1670.909, newRatings.x, 1e-3);
            Assert.AreEqual(1329.091, newRatings.y, 1e-3);
        }

        [Test]
        public void SpecSection3Table()
        {
            Vector2 win = RankingELO.UpdatePlayerRankings(1000f, 1000f, 32f, true);
            Assert.AreEqual(1016f, win.x);
            Assert.AreEqual(984f, win.y);
            Vector2 draw = RankingELO.UpdatePlayerRankings(1500f, 1500f, 32f, MatchResult.Draw);
            Assert.AreEqual(1500f, draw.x);
            Assert.AreEqual(1500f, draw.y);
            Assert.AreEqual(0.5f, RankingELO.GetProbabilityWinning(1500f, 1500f));
            Assert.AreEqual(1.0 - 1.0 / 1.1, RankingELO.GetProbabilityWinning(1300f, 1700f), 1e-7);
        }

        [Test]
        public void AgreesWithTheManagedTutorialWithinFloatPrecision()
        {
            var random = new System.Random(7);
            for (int i = 0; i < 2000; i++)
            {
                float a = (float)(random.NextDouble() * 3000), b = (float)(random.NextDouble() * 3000);
                float k = (float)(random.NextDouble() * 64);
                bool wins = random.Next(2) == 1;
                Vector2 native = RankingELO.UpdatePlayerRankings(a, b, k, wins);
                float[] managed = TutorialReference.UpdatePlayerRankings(a, b, k, wins);
                // The native engine rounds once from double; the managed float code several times.
                Assert.AreEqual(managed[0], native.x, 1e-3, "player 1, pair " + i);
                Assert.AreEqual(managed[1], native.y, 1e-3, "player 2, pair " + i);
                Assert.AreEqual(TutorialReference.GetProbabilityWinning(a, b), RankingELO.GetProbabilityWinning(a, b), 1e-6);
            }
        }

        [Test]
        public void MirrorsReturnNaNForNaNOrInfiniteInput()
        {
            Assert.IsTrue(float.IsNaN(RankingELO.GetProbabilityWinning(float.NaN, 1500f)));
            Vector2 result = RankingELO.UpdatePlayerRankings(1500f, float.PositiveInfinity, 32f, true);
            Assert.IsTrue(float.IsNaN(result.x) && float.IsNaN(result.y));
        }

        [Test]
        public void ScoreAndResultOverloadsMatchTheBoolMirror()
        {
            Vector2 viaBool = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, false);
            Vector2 viaResult = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, MatchResult.Loss);
            Vector2 viaScore = RankingELO.UpdatePlayerRankings(1700f, 1300f, 32f, 0f);
            Assert.AreEqual(Bits(viaBool.x), Bits(viaResult.x));
            Assert.AreEqual(Bits(viaBool.y), Bits(viaScore.y));
            Vector2 margin = RankingELO.UpdatePlayerRankings(1000f, 1000f, 32f, 0.6f);
            Assert.AreEqual(1003.2, margin.x, 1e-4);
        }

        [Test]
        public void BatchInPlaceAndIntoOutputsMatchSingleCallsBitForBit()
        {
            var random = new System.Random(11);
            const int n = 1000;
            float[] a = new float[n], b = new float[n], s = new float[n];
            for (int i = 0; i < n; i++)
            {
                a[i] = (float)(random.NextDouble() * 3000);
                b[i] = (float)(random.NextDouble() * 3000);
                s[i] = i % 3 == 0 ? 0.5f : random.Next(2);
            }
            float[] outA = new float[n], outB = new float[n];
            RankingELO.UpdatePlayerRankings(a, b, s, 24f, outA, outB);
            float[] inA = (float[])a.Clone(), inB = (float[])b.Clone();
            RankingELO.UpdatePlayerRankings(inA, inB, s, 24f);
            for (int i = 0; i < n; i++)
            {
                Vector2 single = RankingELO.UpdatePlayerRankings(a[i], b[i], 24f, s[i]);
                Assert.AreEqual(Bits(single.x), Bits(outA[i]), "out a " + i);
                Assert.AreEqual(Bits(single.y), Bits(outB[i]), "out b " + i);
                Assert.AreEqual(Bits(single.x), Bits(inA[i]), "in place a " + i);
                Assert.AreEqual(Bits(single.y), Bits(inB[i]), "in place b " + i);
            }
        }

        [Test]
        public void BatchRefusesBadInputAndChangesNothing()
        {
            float[] a = { 1500f, 1600f }, b = { 1500f, 1400f };
            float[] badScores = { 1f, 1.5f };
            var error = Assert.Throws<EloArgumentException>(() => RankingELO.UpdatePlayerRankings(a, b, badScores, 32f));
            Assert.AreEqual(EloError.ScoreOutOfRange, error.Error);
            StringAssert.Contains("[1] must be between 0 and 1", error.Message);
            Assert.AreEqual(1500f, a[0]);
            Assert.AreEqual(1400f, b[1]);
            Assert.Throws<EloArgumentException>(() => RankingELO.UpdatePlayerRankings(a, b, new float[3], 32f));
            Assert.Throws<ArgumentNullException>(() => RankingELO.UpdatePlayerRankings(a, null, badScores, 32f));
            var negativeK = Assert.Throws<EloArgumentException>(() => RankingELO.UpdatePlayerRankings(a, b, new[] { 1f, 0f }, -1f));
            Assert.AreEqual(EloError.NegativeK, negativeK.Error);
            var nan = Assert.Throws<EloArgumentException>(() => RankingELO.UpdatePlayerRankings(1500f, float.NaN, 32f, MatchResult.Win));
            Assert.AreEqual(EloError.NotFinite, nan.Error);
            Assert.IsInstanceOf<ArgumentException>(nan);
        }

        [Test]
        public void EmptyBatchIsANoOp()
        {
            RankingELO.UpdatePlayerRankings(new float[0], new float[0], new float[0], 32f);
        }

        internal static uint Bits(float value)
        {
            return BitConverter.ToUInt32(BitConverter.GetBytes(value), 0);
        }
    }
}
