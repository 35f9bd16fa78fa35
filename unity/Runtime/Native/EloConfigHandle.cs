using System;
using System.Runtime.InteropServices;

namespace RankingElo.Native
{
    /// <summary>Owns a native <c>EloConfig*</c>; frees it exactly once.</summary>
    internal sealed class EloConfigHandle : SafeHandle
    {
        internal EloConfigHandle() : base(IntPtr.Zero, true)
        {
        }

        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        internal static unsafe EloConfigHandle Wrap(EloConfig* config)
        {
            var owned = new EloConfigHandle();
            owned.SetHandle((IntPtr)config);
            return owned;
        }

        protected override unsafe bool ReleaseHandle()
        {
            NativeMethods.elo_config_free((EloConfig*)handle);
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
