// Stand-in for the UnityWebRequest surface the ladder client uses inside Unity
// (UnityEngine.Networking), so that its Unity flavour compiles here, with just enough of
// Unity's behaviour for tests/unity-flavour to drive the client's Unity path on Mono:
// creating a request off the main thread throws UnityException (the thread that first
// touches StandInThreads is the main thread here), a sent request completes when the test
// calls StandInAnswer (or Abort is called), and the last request made is kept in Last
// (every one in Made).
using System;
using System.Collections.Generic;
using System.Threading;

namespace UnityEngine
{
    public class AsyncOperation
    {
        private Action<AsyncOperation> handlers;
        private bool done;

        public event Action<AsyncOperation> completed
        {
            add
            {
                // As in Unity: a handler added after completion runs at once.
                if (done) value(this); else handlers += value;
            }
            remove { handlers -= value; }
        }

        public bool isDone { get { return done; } }

        internal void Complete()
        {
            done = true;
            if (handlers != null) handlers(this);
        }
    }

    public class UnityException : Exception
    {
        public UnityException(string message) : base(message) { }
    }

    public static class StandInThreads
    {
        public static readonly int Main = Thread.CurrentThread.ManagedThreadId;

        public static void RequireMain(string what)
        {
            if (Thread.CurrentThread.ManagedThreadId != Main)
            {
                throw new UnityException(what + " can only be called from the main thread.");
            }
        }
    }
}

namespace UnityEngine.Networking
{
    public class UnityWebRequestAsyncOperation : AsyncOperation { }

    public abstract class UploadHandler : IDisposable
    {
        public void Dispose() { }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public UploadHandlerRaw(byte[] data) { }
    }

    public abstract class DownloadHandler : IDisposable
    {
        internal string body = "";
        public string text { get { return body; } }
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler { }

    public class UnityWebRequest : IDisposable
    {
        public enum Result { InProgress, Success, ConnectionError, ProtocolError, DataProcessingError }

        /// <summary>The last request made (stand-in only).</summary>
        public static UnityWebRequest Last;

        /// <summary>Every request made, in order (stand-in only; a test may clear it).</summary>
        public static readonly List<UnityWebRequest> Made = new List<UnityWebRequest>();

        private readonly UnityWebRequestAsyncOperation operation = new UnityWebRequestAsyncOperation();
        private readonly Dictionary<string, string> responseHeaders = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        private Result state = Result.InProgress;
        private long code;
        private string failure;

        public UnityWebRequest(string url, string method)
        {
            StandInThreads.RequireMain("Create");
            this.url = url;
            this.method = method;
            Last = this;
            Made.Add(this);
        }

        public string url { get; private set; }
        public string method { get; private set; }
        public UploadHandler uploadHandler { get; set; }
        public DownloadHandler downloadHandler { get; set; }
        public int timeout { get; set; }
        public long responseCode { get { return code; } }
        public Result result { get { return state; } }
        public string error { get { return failure; } }
        public void SetRequestHeader(string name, string value) { }
        public string GetResponseHeader(string name) { string value; return responseHeaders.TryGetValue(name, out value) ? value : null; }
        public UnityWebRequestAsyncOperation SendWebRequest() { return operation; }

        public void Abort()
        {
            StandInThreads.RequireMain("Abort");
            StandInAnswer(Result.ConnectionError, 0, "Request aborted", "", null);
        }

        /// <summary>Completes the request as Unity would (stand-in only).</summary>
        public void StandInAnswer(Result result, long responseCode, string error, string text, Dictionary<string, string> headers)
        {
            if (operation.isDone) return;
            state = result;
            code = responseCode;
            failure = error;
            if (downloadHandler != null) downloadHandler.body = text;
            if (headers != null) foreach (var pair in headers) responseHeaders[pair.Key] = pair.Value;
            operation.Complete();
        }

        public void Dispose() { }
    }
}
