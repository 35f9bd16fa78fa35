using System;
using System.Runtime.InteropServices;

namespace RankingElo.Native
{
    /// <summary>A SafeHandle around a native object pointer (NULL is invalid).</summary>
    internal abstract class NativeHandle : SafeHandle
    {
        protected NativeHandle(IntPtr pointer) : base(IntPtr.Zero, true)
        {
            SetHandle(pointer);
        }

        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }
    }

    /// <summary>Owns a native <c>EloConfig*</c>; frees it exactly once.</summary>
    internal sealed class EloConfigHandle : NativeHandle
    {
        private unsafe EloConfigHandle(EloConfig* config) : base((IntPtr)config)
        {
        }

        internal static unsafe EloConfigHandle Wrap(EloConfig* config)
        {
            return new EloConfigHandle(config);
        }

        protected override unsafe bool ReleaseHandle()
        {
            NativeMethods.elo_config_free((EloConfig*)handle);
            return true;
        }
    }

    /// <summary>Owns a native <c>EloPool*</c>; frees it exactly once.</summary>
    internal sealed class EloPoolHandle : NativeHandle
    {
        private unsafe EloPoolHandle(EloPool* pool) : base((IntPtr)pool)
        {
        }

        internal static unsafe EloPoolHandle Wrap(EloPool* pool)
        {
            return new EloPoolHandle(pool);
        }

        protected override unsafe bool ReleaseHandle()
        {
            NativeMethods.elo_pool_free((EloPool*)handle);
            return true;
        }
    }

    /// <summary>Owns a native <c>EloMatchmaker*</c>; frees it exactly once.</summary>
    internal sealed class EloMatchmakerHandle : NativeHandle
    {
        private unsafe EloMatchmakerHandle(EloMatchmaker* queue) : base((IntPtr)queue)
        {
        }

        internal static unsafe EloMatchmakerHandle Wrap(EloMatchmaker* queue)
        {
            return new EloMatchmakerHandle(queue);
        }

        protected override unsafe bool ReleaseHandle()
        {
            NativeMethods.elo_matchmaker_free((EloMatchmaker*)handle);
            return true;
        }
    }

    /// <summary>
    /// Borrows a SafeHandle's pointer for the duration of a native call: the handle cannot be
    /// released meanwhile (even by <c>Dispose</c> on another thread), and a disposed handle
    /// throws <see cref="ObjectDisposedException"/> instead of reaching native code.
    /// </summary>
    internal struct HandleLease : IDisposable
    {
        private readonly SafeHandle owner;
        private readonly bool added;

        internal HandleLease(SafeHandle owner, string objectName)
        {
            if (owner.IsClosed)
            {
                throw new ObjectDisposedException(objectName);
            }
            this.owner = owner;
            bool success = false;
            owner.DangerousAddRef(ref success);
            added = success;
            Pointer = owner.DangerousGetHandle();
        }

        /// <summary>The raw pointer, valid until the lease is disposed.</summary>
        internal IntPtr Pointer { get; private set; }

        public void Dispose()
        {
            if (added)
            {
                owner.DangerousRelease();
            }
        }
    }
}
