using Unity.Collections;
using Unity.Jobs;
using UnityEngine;

namespace RankingElo.Samples.BurstJobs
{
    /// <summary>
    /// Schedules <see cref="RateBatchJob"/> over 100,000 random pairs and <see cref="PoolSliceJob"/>
    /// on a 1,000-player pool, and logs the outcome. Add it to any GameObject.
    /// </summary>
    public sealed class BurstJobsDemo : MonoBehaviour
    {
        private const int Pairs = 100000;

        private void Start()
        {
            using (var rules = new EloRules())
            using (var pool = new RatingPool(rules))
            {
                var ratingsA = new NativeArray<float>(Pairs, Allocator.TempJob);
                var ratingsB = new NativeArray<float>(Pairs, Allocator.TempJob);
                var scores = new NativeArray<float>(Pairs, Allocator.TempJob);
                var random = new System.Random(1);
                for (int i = 0; i < Pairs; i++)
                {
                    ratingsA[i] = 1000f + 1000f * (float)random.NextDouble();
                    ratingsB[i] = 1000f + 1000f * (float)random.NextDouble();
                    scores[i] = random.Next(3) * 0.5f;
                }
                const int chunk = 4096;
                int chunks = (Pairs + chunk - 1) / chunk;
                var batchResults = new NativeArray<uint>(chunks, Allocator.TempJob);
                var batch = new RateBatchJob { Rules = rules.BurstHandle, ChunkSize = chunk, RatingsA = ratingsA, RatingsB = ratingsB, ScoresA = scores, Results = batchResults };
                JobHandle batchDone = batch.Schedule(chunks, 1);

                pool.AddPlayers(1000);
                var a = new NativeArray<int>(500, Allocator.TempJob);
                var b = new NativeArray<int>(500, Allocator.TempJob);
                var poolScores = new NativeArray<float>(500, Allocator.TempJob);
                for (int i = 0; i < 500; i++)
                {
                    a[i] = 2 * i;
                    b[i] = 2 * i + 1;
                    poolScores[i] = 1f;
                }
                var slice = new NativeArray<float>(10, Allocator.TempJob);
                var poolResults = new NativeArray<uint>(2, Allocator.TempJob);
                var poolJob = new PoolSliceJob { Pool = pool.BurstHandle, PlayerA = a, PlayerB = b, ScoresA = poolScores, SliceStart = 0, SliceRatings = slice, Results = poolResults };
                JobHandle poolDone = poolJob.Schedule();

                batchDone.Complete();
                poolDone.Complete();
                Debug.Log("RateBatchJob: first pair now " + ratingsA[0] + " / " + ratingsB[0] + ", result " + batchResults[0]
                    + "; PoolSliceJob: player 0 now " + slice[0] + ", results " + poolResults[0] + "/" + poolResults[1]);
                foreach (var array in new[] { ratingsA, ratingsB, scores, slice, poolScores }) array.Dispose();
                a.Dispose();
                b.Dispose();
                batchResults.Dispose();
                poolResults.Dispose();
            }
        }
    }
}
