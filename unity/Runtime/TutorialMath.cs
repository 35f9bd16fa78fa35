using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
#if UNITY_5_3_OR_NEWER
using Vector2 = UnityEngine.Vector2;
#endif

namespace RankingElo
{
    /// <summary>
    /// The tutorial's two methods computed in managed code with the native engine's exact
    /// arithmetic, so a drop-in call on Mono costs no more than the tutorial's own C# (a
    /// P/Invoke transition alone costs Mono more than the whole computation).
    /// </summary>
    /// <remarks>
    /// <para>This is the engine's tutorial path operation for operation: the engine's
    /// <c>tutorial_probability</c> and <c>tutorial_update</c> (src/rating/update.rs), the
    /// logistic expectation (src/rating/expected.rs) and its deterministic <c>exp2</c>
    /// (src/rating/detmath.rs). Every step is an IEEE-754 double addition, subtraction,
    /// multiplication, division, comparison or bit operation in the same order, and the
    /// constants are the same bits (checked by the tests), so the results are the native
    /// library's bits. The C# test suite compares both over millions of random and edge
    /// inputs; a change to the engine's math that is not made here fails there.</para>
    /// <para>Used only where it is verified: Mono (JIT and full AOT) in a 64-bit x86 process,
    /// the runtime the test suite runs on. Everywhere else the native library is called,
    /// whose bits are the reference: IL2CPP (iOS, Android, WebGL, consoles, IL2CPP desktop
    /// players), where a C++ compiler may contract <c>a * b + c</c> into a fused
    /// multiply-add; 32-bit Mono, which may keep x87 temporaries; and Mono on arm64 (the
    /// Apple silicon Editor), not tested here (its JIT is expected to give the same bits, and
    /// this switch can follow once a test shows it).</para>
    /// </remarks>
    internal static class TutorialMath
    {
        /// <summary>True where this class gives the native library's bits (see the remarks).</summary>
#if ENABLE_IL2CPP || UNITY_WEBGL
        internal static bool Exact { get { return false; } }
#else
        internal static bool Exact { get { return Verified.X64; } }

        /// <summary>Read once (a nested class, so the hot paths carry no initialisation check).</summary>
        private static class Verified
        {
            /// <summary>A 64-bit x86 process: the only architecture whose Mono the tests run here.</summary>
            internal static readonly bool X64 = RuntimeInformation.ProcessArchitecture == Architecture.X64;
        }
#endif

        /// <summary>The engine's NaN: the quiet NaN with a clear sign bit (0x7FC00000; .NET's
        /// <c>float.NaN</c> has the sign bit set on most machines).</summary>
        /// <remarks>Read through a nested class so that the hot paths carry no class
        /// initialisation check for it.</remarks>
        internal static float NaN { get { return EngineNaN.Value; } }

        /// <summary><c>log2(10) / 400</c>: the logistic curve's scale for c = 400 (bits 0x3F81021E1A8B49E2).</summary>
        internal const double TutorialScale = 0.008304820237218406;

        /// <summary><c>1.5 * 2^52</c>: adding it rounds a value below <c>2^51</c> to an integer held in the low mantissa bits.</summary>
        internal const double RoundingShifter = 6755399441055744.0;

        /// <summary>Arguments of <see cref="Exp2"/> are clamped to plus or minus this.</summary>
        internal const double Exp2ArgumentLimit = 200.0;

        /// <summary>Taylor coefficients of <c>2^f</c>: <c>(ln 2)^k / k!</c>, the engine's bits (k = 0 is 1).</summary>
        internal const double C1 = 0.6931471805599453;
        /// <summary>Coefficient of <c>f^2</c>.</summary>
        internal const double C2 = 0.2402265069591007;
        /// <summary>Coefficient of <c>f^3</c>.</summary>
        internal const double C3 = 0.055504108664821576;
        /// <summary>Coefficient of <c>f^4</c>.</summary>
        internal const double C4 = 0.009618129107628477;
        /// <summary>Coefficient of <c>f^5</c>.</summary>
        internal const double C5 = 0.0013333558146428443;
        /// <summary>Coefficient of <c>f^6</c>.</summary>
        internal const double C6 = 0.0001540353039338161;
        /// <summary>Coefficient of <c>f^7</c>.</summary>
        internal const double C7 = 1.525273380405984e-05;
        /// <summary>Coefficient of <c>f^8</c>.</summary>
        internal const double C8 = 1.3215486790144307e-06;

        /// <summary>The engine's <c>tutorial_probability</c>: NaN for NaN or infinite input.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static float Probability(float ratingPlayer1, float ratingPlayer2)
        {
            // A finite x gives x - x = +0; NaN and either infinity give NaN, which fails ==.
            double r1 = ratingPlayer1, r2 = ratingPlayer2;
            if (!((r1 - r1) + (r2 - r2) == 0.0))
            {
                return NaN;
            }
            return (float)Expected(r1, r2);
        }

        /// <summary>The engine's <c>tutorial_update</c>: NaN in both for NaN or infinite input or a negative multiplier.</summary>
        /// <remarks>Returns the <see cref="Vector2"/> itself (no <c>out</c> locals for Mono to
        /// keep in memory) and tests the arguments with one branch.</remarks>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static Vector2 Update(float ratingPlayer1, float ratingPlayer2, float multiplier, bool isPlayer1Winner)
        {
            double r1 = ratingPlayer1, r2 = ratingPlayer2, k = multiplier;
            if (!((r1 - r1) + (r2 - r2) + (k - k) == 0.0 && k >= 0.0))
            {
                return new Vector2(NaN, NaN);
            }
            double expectedA = Expected(r1, r2);
            double scoreA = isPlayer1Winner ? 1.0 : 0.0;
            // rate_with_expected with the tutorial's terms, simplified only where IEEE-754
            // guarantees the same bits: the streak multiplier 1 (k * 1 is k for finite k),
            // equal K (B's K term is A's negated), and the score-share and victory bonuses of
            // zero, whose products with a score of 0 or 1 are +0. Adding +0 to a finite value
            // changes only a -0 into +0, and so does subtracting from +0: for finite x,
            // `0.0 - x` is exactly `-x + 0.0`, and `0.0 - (0.0 - x)` exactly `x + 0.0`. They
            // are written that way because Mono's JIT folds `x + 0.0` into `x`, which keeps
            // a -0 (the sweep test caught it: a player rated -0 whose change is 0 stays -0
            // there, +0 in the engine). No rounding, no floor.
            double kTermA = k * (scoreA - expectedA);
            double deltaB = 0.0 - kTermA;
            double deltaA = 0.0 - deltaB;
            return new Vector2((float)(r1 + deltaA), (float)(r2 + deltaB));
        }

        /// <summary>The logistic expectation of player 1 with c = 400, in double (the ratings are floats widened).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static double Expected(double ratingPlayer1, double ratingPlayer2)
        {
            double difference = ratingPlayer1 - ratingPlayer2;
            return 1.0 / (1.0 + Exp2(-difference * TutorialScale));
        }

        /// <summary>The engine's deterministic <c>2^y</c> (detmath::exp2): a degree-8 polynomial on the fraction, scaled by an exact power of two.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static double Exp2(double y)
        {
            y = y > Exp2ArgumentLimit ? Exp2ArgumentLimit : y;
            y = y < -Exp2ArgumentLimit ? -Exp2ArgumentLimit : y;
            double shifted = y + RoundingShifter;
            double n = shifted - RoundingShifter;
            double f = y - n;
            ulong nBits = unchecked((ulong)BitConverter.DoubleToInt64Bits(shifted) - (ulong)BitConverter.DoubleToInt64Bits(RoundingShifter));
            double scale = BitConverter.Int64BitsToDouble(unchecked((long)((nBits + 1023UL) << 52)));
            double p = C8;
            p = p * f + C7;
            p = p * f + C6;
            p = p * f + C5;
            p = p * f + C4;
            p = p * f + C3;
            p = p * f + C2;
            p = p * f + C1;
            p = p * f + 1.0;
            return p * scale;
        }

        private static class EngineNaN
        {
            internal static readonly float Value = Make();

            private static unsafe float Make()
            {
                int bits = 0x7FC00000;
                return *(float*)&bits;
            }
        }
    }
}
