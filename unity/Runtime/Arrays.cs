using System;

namespace RankingElo
{
    /// <summary>Argument checks shared by the array overloads.</summary>
    internal static class Arrays
    {
        internal static int CommonLength(float[] a, string nameA, float[] b, string nameB, float[] c, string nameC)
        {
            if (a == null) throw new ArgumentNullException(nameA);
            if (b == null) throw new ArgumentNullException(nameB);
            if (c == null) throw new ArgumentNullException(nameC);
            return CommonLength(a.Length, nameA, b.Length, nameB, c.Length, nameC);
        }

        internal static int CommonLength(int a, string nameA, int b, string nameB, int c, string nameC)
        {
            if (b != a) throw new EloArgumentException(EloError.InvalidLength, nameB + " has " + b + " elements but " + nameA + " has " + a);
            if (c != a) throw new EloArgumentException(EloError.InvalidLength, nameC + " has " + c + " elements but " + nameA + " has " + a);
            return a;
        }

        internal static void RequireLength(float[] array, string name, int length)
        {
            if (array == null) throw new ArgumentNullException(name);
            if (array.Length != length) throw new EloArgumentException(EloError.InvalidLength, name + " has " + array.Length + " elements but " + length + " are needed");
        }

        internal static void RequireLengthOrNull(float[] array, string name, int length)
        {
            if (array != null) RequireLength(array, name, length);
        }

        internal static void RequireSpanLength(int actual, string name, int length)
        {
            if (actual != length) throw new EloArgumentException(EloError.InvalidLength, name + " has " + actual + " elements but " + length + " are needed");
        }

        /// <summary>An optional span output: empty (not wanted) or one element per match.</summary>
        internal static void RequireOptionalSpanLength(int actual, string name, int length)
        {
            if (actual != 0) RequireSpanLength(actual, name, length);
        }
    }
}
