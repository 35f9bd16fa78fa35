#if UNITY_5_3_OR_NEWER
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using RankingElo.Native;

namespace RankingElo
{
    /// <summary><see cref="NativeArray{T}"/> overloads of the per-frame pool calls: no copy, no allocation.</summary>
    public sealed partial class RatingPool
    {
        /// <summary>Copies the ratings of players <c>start .. start + ratings.Length</c> into a NativeArray.</summary>
        /// <param name="ratings">Receives the ratings.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetRatings(NativeArray<float> ratings, int start)
        {
            if (ratings.Length == 0) return;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_ratings(Pool(lease), start, ratings.Length, (float*)NativeArrayUnsafeUtility.GetUnsafePtr(ratings)));
            }
        }

        /// <summary>Copies the league indices of players <c>start .. start + leagues.Length</c> into a NativeArray.</summary>
        /// <param name="leagues">Receives the league indices.</param>
        /// <param name="start">Index of the first player.</param>
        public unsafe void GetLeagues(NativeArray<int> leagues, int start)
        {
            if (leagues.Length == 0) return;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_get_leagues(Pool(lease), start, leagues.Length, (int*)NativeArrayUnsafeUtility.GetUnsafePtr(leagues)));
            }
        }

        /// <summary>Applies matches given as NativeArrays, in order, atomically (see the array overload).</summary>
        /// <param name="playerA">Indices of the A players.</param>
        /// <param name="playerB">Indices of the B players.</param>
        /// <param name="scoreA">A's scores in [0, 1].</param>
        public unsafe void Apply(NativeArray<int> playerA, NativeArray<int> playerB, NativeArray<float> scoreA)
        {
            int count = playerA.Length;
            Arrays.RequireSpanLength(playerB.Length, "playerB", count);
            Arrays.RequireSpanLength(scoreA.Length, "scoreA", count);
            if (count == 0) return;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_apply(Pool(lease),
                    (int*)NativeArrayUnsafeUtility.GetUnsafeReadOnlyPtr(playerA), (int*)NativeArrayUnsafeUtility.GetUnsafeReadOnlyPtr(playerB),
                    (float*)NativeArrayUnsafeUtility.GetUnsafeReadOnlyPtr(scoreA), count, null, null, null));
            }
        }

        /// <summary>Writes the best players' indices, best first, into a NativeArray.</summary>
        /// <param name="indices">Receives the indices.</param>
        /// <returns>How many were written.</returns>
        public unsafe int Top(NativeArray<int> indices)
        {
            int written = 0;
            if (indices.Length == 0) return 0;
            using (var lease = Lease())
            {
                ThrowHelper.Check(NativeMethods.elo_pool_top(Pool(lease), indices.Length, (int*)NativeArrayUnsafeUtility.GetUnsafePtr(indices), &written));
            }
            return written;
        }
    }
}
#endif
