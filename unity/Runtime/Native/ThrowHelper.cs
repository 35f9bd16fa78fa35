using System;
using System.Text;

namespace RankingElo.Native
{
    /// <summary>The one place where native result codes become exceptions.</summary>
    internal static class ThrowHelper
    {
        /// <summary>Throws the exception for <paramref name="code"/> unless it is <c>Ok</c>.</summary>
        internal static void Check(EloResult code)
        {
            if (code != EloResult.Ok)
            {
                throw Create(code);
            }
        }

        internal static Exception Create(EloResult code)
        {
            EloError error = (EloError)(uint)code;
            string message = LastErrorMessage();
            switch (code)
            {
                case EloResult.NullPointer:
                case EloResult.InvalidLength:
                case EloResult.NotFinite:
                case EloResult.ScoreOutOfRange:
                case EloResult.NegativePoints:
                case EloResult.NegativeK:
                case EloResult.InvalidJson:
                case EloResult.UnknownJsonField:
                case EloResult.InvalidConfig:
                case EloResult.OverlappingBuffers:
                case EloResult.InvalidUtf8:
                case EloResult.SamePlayer:
                case EloResult.DuplicateId:
                case EloResult.OutOfRange:
                case EloResult.InvalidArgument:
                    return new EloArgumentException(error, message);
                case EloResult.IndexOutOfRange:
                    return new EloIndexOutOfRangeException(error, message);
                case EloResult.InvalidSave:
                    return new EloSaveException(error, message);
                case EloResult.Io:
                    return new EloIOException(error, message);
                case EloResult.KPolicyNeedsPlayerState:
                    return new EloInvalidOperationException(error, message);
                default:
                    return new EloNativeException(error, message);
            }
        }

        /// <summary>The message of the last native failure on this thread.</summary>
        internal static unsafe string LastErrorMessage()
        {
            int length = 0;
            NativeMethods.elo_last_error_message(null, 0, &length);
            byte[] buffer = new byte[length + 1];
            fixed (byte* p = buffer)
            {
                if (NativeMethods.elo_last_error_message(p, buffer.Length, &length) != EloResult.Ok)
                {
                    return "(the native error message could not be read)";
                }
            }
            return Encoding.UTF8.GetString(buffer, 0, length);
        }
    }
}
