// Stand-in for the UnityWebRequest surface the ladder client uses inside Unity
// (UnityEngine.Networking), so that its Unity flavour compiles here. Signatures only.
using System;

namespace UnityEngine
{
    public class AsyncOperation
    {
        public event Action<AsyncOperation> completed { add { } remove { } }
        public bool isDone { get { return true; } }
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
        public string text { get { return ""; } }
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler { }

    public class UnityWebRequest : IDisposable
    {
        public enum Result { InProgress, Success, ConnectionError, ProtocolError, DataProcessingError }

        public UnityWebRequest(string url, string method) { }
        public UploadHandler uploadHandler { get; set; }
        public DownloadHandler downloadHandler { get; set; }
        public long responseCode { get { return 0; } }
        public Result result { get { return Result.Success; } }
        public string error { get { return null; } }
        public void SetRequestHeader(string name, string value) { }
        public UnityWebRequestAsyncOperation SendWebRequest() { return new UnityWebRequestAsyncOperation(); }
        public void Dispose() { }
    }
}
