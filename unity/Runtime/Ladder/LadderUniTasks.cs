#if RANKING_ELO_UNITASK
using System;
using System.Threading;
using Cysharp.Threading.Tasks;

namespace RankingElo.Ladder
{
    /// <summary>
    /// The ladder client with UniTask (compiled when the project has <c>com.cysharp.unitask</c>:
    /// the package's assembly definition defines <c>RANKING_ELO_UNITASK</c> then). Every call
    /// becomes a UniTask with UniTask's own <c>AsUniTask()</c>:
    /// <c>await client.GetPlayerAsync(ladder, me, cancellationToken: destroyCancellationToken).AsUniTask()</c>.
    /// What UniTask lacks is retrying them: <see cref="RetryAsync{T}"/> is
    /// <see cref="LadderClient.RetryAsync{T}"/> for calls written as UniTasks, with the same
    /// policy and waits (on the player loop, so they fire on WebGL too).
    /// </summary>
    public static class LadderUniTasks
    {
        /// <summary>
        /// Runs <paramref name="call"/> again after a wait when it fails in a way worth retrying
        /// (<see cref="LadderException.IsRetryable"/>), as <see cref="LadderClient.RetryAsync{T}"/>.
        /// </summary>
        /// <typeparam name="T">What the call returns.</typeparam>
        /// <param name="call">The call; it receives the token to pass on.</param>
        /// <param name="policy">Attempts and waits (null: <see cref="LadderRetryPolicy"/>'s defaults).</param>
        /// <param name="cancellationToken">Stops the retries (typically <c>destroyCancellationToken</c>).</param>
        /// <returns>The first successful result.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="call"/> is null.</exception>
        /// <exception cref="LadderException">The last attempt's failure, or the first failure not worth retrying.</exception>
        public static UniTask<T> RetryAsync<T>(Func<CancellationToken, UniTask<T>> call, LadderRetryPolicy policy = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (call == null) throw new ArgumentNullException("call");
            return LadderClient.RetryAsync(token => call(token).AsTask(), policy, cancellationToken).AsUniTask();
        }
    }
}
#endif
