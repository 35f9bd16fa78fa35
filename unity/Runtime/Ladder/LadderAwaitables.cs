#if UNITY_2023_1_OR_NEWER
using System;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine;

namespace RankingElo.Ladder
{
    /// <summary>
    /// The ladder client's calls as Unity's <see cref="Awaitable"/> (Unity 2023.1 and newer):
    /// <c>await client.GetPlayerAsync(ladder, me).AsAwaitable(destroyCancellationToken)</c> in an
    /// <c>async Awaitable</c> method. The result arrives on the thread that completed the call
    /// (inside Unity, the main thread: the ladder client's requests complete there) or, when
    /// <paramref name="cancellationToken"/> is cancelled first, the awaitable is cancelled at
    /// once; pass the same token to the call so that its request stops too.
    /// </summary>
    public static class LadderAwaitables
    {
        /// <summary>The call's result as an <see cref="Awaitable{T}"/>.</summary>
        /// <typeparam name="T">What the call returns.</typeparam>
        /// <param name="task">A call of <see cref="LadderClient"/> (or any task).</param>
        /// <param name="cancellationToken">Cancels the awaitable (typically <c>destroyCancellationToken</c>).</param>
        /// <returns>An awaitable that completes with the call: its result, its exception, or cancelled.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="task"/> is null.</exception>
        public static Awaitable<T> AsAwaitable<T>(this Task<T> task, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (task == null) throw new ArgumentNullException("task");
            var source = new AwaitableCompletionSource<T>();
            CancellationTokenRegistration registration = cancellationToken.Register(() => source.TrySetCanceled());
            task.ContinueWith(done =>
            {
                registration.Dispose();
                if (done.IsCanceled) source.TrySetCanceled();
                else if (done.IsFaulted) source.TrySetException(Unwrap(done.Exception));
                else source.TrySetResult(done.Result);
            }, TaskContinuationOptions.ExecuteSynchronously);
            return source.Awaitable;
        }

        /// <summary>The call's completion as an <see cref="Awaitable"/>.</summary>
        /// <param name="task">A task.</param>
        /// <param name="cancellationToken">Cancels the awaitable (typically <c>destroyCancellationToken</c>).</param>
        /// <returns>An awaitable that completes with the task: done, its exception, or cancelled.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="task"/> is null.</exception>
        public static Awaitable AsAwaitable(this Task task, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (task == null) throw new ArgumentNullException("task");
            var source = new AwaitableCompletionSource();
            CancellationTokenRegistration registration = cancellationToken.Register(() => source.TrySetCanceled());
            task.ContinueWith(done =>
            {
                registration.Dispose();
                if (done.IsCanceled) source.TrySetCanceled();
                else if (done.IsFaulted) source.TrySetException(Unwrap(done.Exception));
                else source.TrySetResult();
            }, TaskContinuationOptions.ExecuteSynchronously);
            return source.Awaitable;
        }

        /// <summary>The call's own exception (a <see cref="LadderException"/>), not the task's wrapper.</summary>
        private static Exception Unwrap(AggregateException error)
        {
            return error.InnerExceptions.Count == 1 ? error.InnerExceptions[0] : error;
        }
    }
}
#endif
