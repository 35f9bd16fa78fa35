using RankingElo.Burst;
using Unity.Burst;
using Unity.Collections;
using Unity.Collections.LowLevel.Unsafe;
using Unity.Jobs;

namespace RankingElo.Samples.BurstJobs
{
    /// <summary>
    /// Rates independent matches in parallel inside Burst-compiled code: each job index rates
    /// one chunk of pairs in place with <see cref="EloBurst.RateBatch"/> (the same native
    /// function, and so the same bits, as <see cref="RankingELO.UpdatePlayerRankings(float[], float[], float[], float)"/>).
    /// Chunks touch disjoint elements, so the result does not depend on scheduling.
    /// </summary>
    [BurstCompile]
    public unsafe struct RateBatchJob : IJobParallelFor
    {
        /// <summary>The rules (from <see cref="EloRules.BurstHandle"/>; keep the rules alive until the job completes).</summary>
        public EloRulesHandle Rules;

        /// <summary>Pairs per job index.</summary>
        public int ChunkSize;

        /// <summary>A's ratings, replaced by the new ratings.</summary>
        [NativeDisableParallelForRestriction] public NativeArray<float> RatingsA;

        /// <summary>B's ratings, replaced by the new ratings.</summary>
        [NativeDisableParallelForRestriction] public NativeArray<float> RatingsB;

        /// <summary>A's scores in [0, 1].</summary>
        [ReadOnly] public NativeArray<float> ScoresA;

        /// <summary>The engine's result code per chunk (0 = success; a failed chunk changes nothing).</summary>
        public NativeArray<uint> Results;

        /// <summary>Rates chunk <paramref name="chunk"/>.</summary>
        /// <param name="chunk">The job index.</param>
        public void Execute(int chunk)
        {
            int start = chunk * ChunkSize;
            int count = RatingsA.Length - start < ChunkSize ? RatingsA.Length - start : ChunkSize;
            float* a = (float*)RatingsA.GetUnsafePtr() + start;
            float* b = (float*)RatingsB.GetUnsafePtr() + start;
            float* s = (float*)ScoresA.GetUnsafeReadOnlyPtr() + start;
            Results[chunk] = EloBurst.RateBatch(Rules, a, b, s, null, count, a, b);
        }
    }

    /// <summary>
    /// Applies a list of matches to a slice of a pool from a Burst job, then reads the
    /// slice's ratings back: one job, because a pool applies matches in order.
    /// </summary>
    [BurstCompile]
    public unsafe struct PoolSliceJob : IJob
    {
        /// <summary>The pool (from <see cref="RatingPool.BurstHandle"/>; keep the pool alive until the job completes).</summary>
        public EloPoolHandle Pool;

        /// <summary>Indices of the A players.</summary>
        [ReadOnly] public NativeArray<int> PlayerA;

        /// <summary>Indices of the B players.</summary>
        [ReadOnly] public NativeArray<int> PlayerB;

        /// <summary>A's scores in [0, 1].</summary>
        [ReadOnly] public NativeArray<float> ScoresA;

        /// <summary>First player of the slice to read back.</summary>
        public int SliceStart;

        /// <summary>Receives the ratings of players <c>SliceStart .. SliceStart + SliceRatings.Length</c>.</summary>
        public NativeArray<float> SliceRatings;

        /// <summary>The engine's result codes: [0] of the apply, [1] of the read-back.</summary>
        public NativeArray<uint> Results;

        /// <summary>Applies the matches and reads the slice.</summary>
        public void Execute()
        {
            int* a = (int*)PlayerA.GetUnsafeReadOnlyPtr();
            int* b = (int*)PlayerB.GetUnsafeReadOnlyPtr();
            float* s = (float*)ScoresA.GetUnsafeReadOnlyPtr();
            Results[0] = EloBurst.PoolApply(Pool, a, b, s, PlayerA.Length, null, null, null);
            Results[1] = EloBurst.PoolGetRatings(Pool, SliceStart, SliceRatings.Length, (float*)SliceRatings.GetUnsafePtr());
        }
    }
}
