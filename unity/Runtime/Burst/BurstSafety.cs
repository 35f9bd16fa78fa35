#if ENABLE_UNITY_COLLECTIONS_CHECKS
using Unity.Collections.LowLevel.Unsafe;
#endif

namespace RankingElo.Burst
{
    /// <summary>
    /// The job-safety side of rules or a pool whose Burst handle jobs may hold. In builds with
    /// Unity's collection checks (<c>ENABLE_UNITY_COLLECTIONS_CHECKS</c>: the Editor, and
    /// development players with them on) it owns an <c>AtomicSafetyHandle</c>, created when the
    /// first Burst handle is made and carried by every handle (their <c>m_Safety</c>, so the
    /// job system tracks the jobs that hold one). Disposing the owner releases it first:
    /// disposing while a scheduled job holds a handle throws Unity's safety exception (and
    /// frees nothing), and a handle used after the owner's disposal throws
    /// <see cref="System.ObjectDisposedException"/> in <see cref="EloBurst"/>, where it would
    /// otherwise read freed memory. Without the checks it is empty and costs nothing.
    /// </summary>
    internal sealed class BurstSafety
    {
#if ENABLE_UNITY_COLLECTIONS_CHECKS
        private readonly object gate = new object();
        private AtomicSafetyHandle handle;
        private bool created;
        private bool released;

        /// <summary>The safety handle, created on first use.</summary>
        /// <exception cref="System.ObjectDisposedException">The owner was disposed.</exception>
        internal AtomicSafetyHandle Handle
        {
            get
            {
                lock (gate)
                {
                    if (released) throw new System.ObjectDisposedException("the rules or pool of this Burst handle");
                    if (!created)
                    {
                        handle = AtomicSafetyHandle.Create();
                        created = true;
                    }
                    return handle;
                }
            }
        }
#endif

        /// <summary>
        /// Releases the safety handle before the owner frees its native memory. Throws (and
        /// releases nothing) while a scheduled job holds one of the owner's handles.
        /// </summary>
        internal void Release()
        {
#if ENABLE_UNITY_COLLECTIONS_CHECKS
            lock (gate)
            {
                if (released) return;
                if (created)
                {
                    AtomicSafetyHandle.CheckDeallocateAndThrow(handle);
                    AtomicSafetyHandle.Release(handle);
                }
                released = true;
            }
#endif
        }
    }
}
