#if !UNITY_5_3_OR_NEWER
using System;
using System.Runtime.InteropServices;

namespace RankingElo
{
    /// <summary>
    /// Stand-in for <c>UnityEngine.Vector2</c> when the package is compiled outside Unity
    /// (Mono tests, game servers). Inside Unity, <see cref="RankingELO"/> returns the real
    /// <c>UnityEngine.Vector2</c>; this struct has the same layout and member names.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Vector2 : IEquatable<Vector2>
    {
        /// <summary>First component (player 1's rating).</summary>
        public float x;

        /// <summary>Second component (player 2's rating).</summary>
        public float y;

        /// <summary>Creates a vector from its two components.</summary>
        /// <param name="x">First component.</param>
        /// <param name="y">Second component.</param>
        public Vector2(float x, float y)
        {
            this.x = x;
            this.y = y;
        }

        /// <summary>Component-wise, bit-for-bit equality of the floats' values.</summary>
        /// <param name="other">The vector to compare with.</param>
        /// <returns>Whether both components are equal.</returns>
        public bool Equals(Vector2 other)
        {
            return x.Equals(other.x) && y.Equals(other.y);
        }

        /// <summary>Equality with a boxed <see cref="Vector2"/>.</summary>
        /// <param name="obj">The object to compare with.</param>
        /// <returns>Whether <paramref name="obj"/> is an equal vector.</returns>
        public override bool Equals(object obj)
        {
            return obj is Vector2 && Equals((Vector2)obj);
        }

        /// <summary>Hash of both components.</summary>
        /// <returns>The hash code.</returns>
        public override int GetHashCode()
        {
            return x.GetHashCode() ^ (y.GetHashCode() << 2);
        }

        /// <summary>Formats like Unity: <c>(x, y)</c> with two decimals.</summary>
        /// <returns>The text.</returns>
        public override string ToString()
        {
            return string.Format(System.Globalization.CultureInfo.InvariantCulture, "({0:F2}, {1:F2})", x, y);
        }
    }
}
#endif
