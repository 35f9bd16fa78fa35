using System;

namespace RankingElo
{
    /// <summary>
    /// Why a native call failed. The values are the C ABI's <c>EloResult</c> codes and never
    /// change meaning.
    /// </summary>
    public enum EloError : uint
    {
        /// <summary>No error.</summary>
        None = 0,
        /// <summary>A required pointer or array was null.</summary>
        NullPointer = 1,
        /// <summary>A count or length was negative, or array lengths disagree.</summary>
        InvalidLength = 2,
        /// <summary>A rating, K, score or point count was NaN or infinite.</summary>
        NotFinite = 3,
        /// <summary>A score was outside [0, 1].</summary>
        ScoreOutOfRange = 4,
        /// <summary>A point count was negative.</summary>
        NegativePoints = 5,
        /// <summary>A K factor was negative.</summary>
        NegativeK = 6,
        /// <summary>Malformed JSON, or a JSON value of the wrong type.</summary>
        InvalidJson = 7,
        /// <summary>A JSON field the engine does not know.</summary>
        UnknownJsonField = 8,
        /// <summary>A configuration setting out of range or inconsistent.</summary>
        InvalidConfig = 9,
        /// <summary>A buffer was too small (handled inside the wrapper).</summary>
        BufferTooSmall = 10,
        /// <summary>The K policy needs player state that the call did not give.</summary>
        KPolicyNeedsPlayerState = 11,
        /// <summary>An output (an array, or a single value such as a count) overlaps another output or an input, other than an array updated exactly in place.</summary>
        OverlappingBuffers = 12,
        /// <summary>Text that is not UTF-8.</summary>
        InvalidUtf8 = 13,
        /// <summary>Both players of a match are the same player.</summary>
        SamePlayer = 14,
        /// <summary>An index is out of range: a player outside the pool, a league the rules do not have.</summary>
        IndexOutOfRange = 15,
        /// <summary>A pool save is truncated, corrupted or inconsistent.</summary>
        InvalidSave = 16,
        /// <summary>A file could not be read or written.</summary>
        Io = 17,
        /// <summary>A player id is already waiting in the matchmaker.</summary>
        DuplicateId = 18,
        /// <summary>A finite number is outside its documented range (a rating beyond ±1e15; a K, L or V above 1e6).</summary>
        OutOfRange = 19,
        /// <summary>An argument is invalid in a way no other code names (a path that does not name a file).</summary>
        InvalidArgument = 20,
        /// <summary>An internal error in the native library (please report it).</summary>
        Panic = 99,
    }

    /// <summary>
    /// An index outside its range: a player index outside the pool (also inside a match
    /// list, where the message gives the match's position), a league the rules do not have.
    /// Every index mistake of the API throws this type (or, for checks made in C# before the
    /// native call, its base <see cref="ArgumentOutOfRangeException"/>), so one
    /// <c>catch (ArgumentOutOfRangeException)</c> covers them all.
    /// </summary>
    [Serializable]
    public class EloIndexOutOfRangeException : ArgumentOutOfRangeException
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native error code.</param>
        /// <param name="message">The native message.</param>
        public EloIndexOutOfRangeException(EloError error, string message) : base(null, message)
        {
            Error = error;
        }

        /// <summary>The native error code (<see cref="EloError.IndexOutOfRange"/>).</summary>
        public EloError Error { get; private set; }
    }

    /// <summary>Bad input to a rating function: the native engine's message says which argument and why.</summary>
    [Serializable]
    public class EloArgumentException : ArgumentException
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native error code.</param>
        /// <param name="message">The native message.</param>
        public EloArgumentException(EloError error, string message) : base(message)
        {
            Error = error;
        }

        /// <summary>The native error code.</summary>
        public EloError Error { get; private set; }
    }

    /// <summary>
    /// A call that does not fit the configuration (for example a rating-only call under the
    /// FIDE K policy, which needs player state).
    /// </summary>
    [Serializable]
    public class EloInvalidOperationException : InvalidOperationException
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native error code.</param>
        /// <param name="message">The native message.</param>
        public EloInvalidOperationException(EloError error, string message) : base(message)
        {
            Error = error;
        }

        /// <summary>The native error code.</summary>
        public EloError Error { get; private set; }
    }

    /// <summary>
    /// A pool save (text or file) is truncated, corrupted, of another format or version, or
    /// inconsistent; the message says what. It is an <see cref="System.IO.IOException"/>, like
    /// <see cref="EloIOException"/> (a file that cannot be read or written), so
    /// <c>catch (IOException)</c> around <see cref="RatingPool.Load"/> covers every reason a
    /// save cannot be loaded; <see cref="RatingPool.TryLoad(string, out string)"/> returns false
    /// for all of them instead.
    /// </summary>
    [Serializable]
    public class EloSaveException : System.IO.IOException
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native result code.</param>
        /// <param name="message">The engine's message, naming what is wrong with the save.</param>
        public EloSaveException(EloError error, string message) : base(message)
        {
            Error = error;
        }

        /// <summary>The native result code (<see cref="EloError.InvalidSave"/>).</summary>
        public EloError Error { get; private set; }
    }

    /// <summary>
    /// A file could not be read or written (a missing file or folder, no permission): the
    /// message names the path, the operation and what to do, for example
    /// <c>cannot save the pool to "saves/ladder.json": the folder "saves" does not exist (…)</c>.
    /// </summary>
    [Serializable]
    public class EloIOException : System.IO.IOException
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native error code.</param>
        /// <param name="message">The native message.</param>
        public EloIOException(EloError error, string message) : base(message)
        {
            Error = error;
        }

        /// <summary>The native error code.</summary>
        public EloError Error { get; private set; }
    }

    /// <summary>An unexpected failure inside the native library.</summary>
    [Serializable]
    public class EloNativeException : Exception
    {
        /// <summary>Creates the exception.</summary>
        /// <param name="error">The native error code.</param>
        /// <param name="message">The native message.</param>
        public EloNativeException(EloError error, string message) : base(message)
        {
            Error = error;
        }

        /// <summary>The native error code.</summary>
        public EloError Error { get; private set; }
    }
}
