// The ladder client's Unity path (UnityWebRequest) on Mono, against tests/unity-stand-in,
// whose UnityWebRequest behaves as Unity's in what the client relies on (it throws
// UnityException off the main thread; a request completes with a result, a status, a body
// and headers). Run by `cargo xtask test` (xtask/src/mono.rs, unity_flavour_programs) in the
// package's Unity Editor flavour. Exit code 0 when every check holds.
//
// It checks what the HttpClient path's tests against a real server cannot reach: the clear
// exception off the main thread, the request's timeout in whole seconds, and the mapping of
// Unity's results (a timeout, a connection error, DataProcessingError, a 429 with
// Retry-After, an abort on cancellation), and the read routes' requests (PreviewAsync's three
// reads at once, each made on the main thread).
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using RankingElo.Ladder;
using UnityEngine;
using UnityEngine.Networking;

static class LadderClientUnity
{
    private static int passes, failures;

    private static string Describe(Exception error)
    {
        return error == null ? "nothing thrown" : error.GetType().Name + ": " + error.Message;
    }

    private static void Check(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
        if (ok) passes++; else failures++;
    }

    /// <summary>Starts a leaderboard call, answers its request as Unity would, and returns what the call threw.</summary>
    private static Exception Answer(LadderClient client, UnityWebRequest.Result result, long status, string error, string text, Dictionary<string, string> headers, out LeaderboardEntry[] entries)
    {
        Task<LeaderboardEntry[]> call = client.GetLeaderboardAsync("ranked");
        UnityWebRequest.Last.StandInAnswer(result, status, error, text, headers);
        entries = null;
        try
        {
            entries = call.GetAwaiter().GetResult();
            return null;
        }
        catch (Exception thrown)
        {
            return thrown;
        }
    }

    private static int Main()
    {
        Check(StandInThreads.Main == Thread.CurrentThread.ManagedThreadId, "this is the stand-in's main thread");
        var client = new LadderClient("https://ladder.example.com", "elo_key");

        // Off the main thread: a clear exception, with Unity's as the inner one.
        Exception offMain = null;
        Task.Run(() =>
        {
            try
            {
                client.GetLeaderboardAsync("ranked").GetAwaiter().GetResult();
            }
            catch (Exception thrown)
            {
                offMain = thrown;
            }
        }).Wait();
        Check(offMain is InvalidOperationException && offMain.Message.Contains("main thread") && offMain.InnerException is UnityException,
            "off the main thread: InvalidOperationException naming the main thread (" + Describe(offMain) + ")");

        // The request's timeout: the client's (10 s), a call's own rounded up to whole seconds.
        Task<LeaderboardEntry[]> pending = client.GetLeaderboardAsync("ranked");
        Check(UnityWebRequest.Last.timeout == 10, "the default timeout reaches UnityWebRequest.timeout (10 s, not Unity's 0 = forever): " + UnityWebRequest.Last.timeout);
        UnityWebRequest.Last.StandInAnswer(UnityWebRequest.Result.Success, 200, null, "{\"entries\":[]}", null);
        Check(pending.IsCompleted && pending.Result.Length == 0, "the call completes with the request");
        pending = client.GetLeaderboardAsync("ranked", timeout: TimeSpan.FromSeconds(2.5));
        Check(UnityWebRequest.Last.timeout == 3, "a call's 2.5 s timeout is 3 whole seconds: " + UnityWebRequest.Last.timeout);
        UnityWebRequest.Last.StandInAnswer(UnityWebRequest.Result.Success, 200, null, "{\"entries\":[]}", null);
        Check(pending.IsCompleted, "and this one too");

        LeaderboardEntry[] entries;
        Exception error = Answer(client, UnityWebRequest.Result.Success, 200, null, "{\"entries\":[{\"rank\":1,\"player\":\"alice\",\"rating\":1516.0,\"league\":0}]}", null, out entries);
        Check(error == null && entries.Length == 1 && entries[0].Player == "alice", "a 200 answer is read");

        error = Answer(client, UnityWebRequest.Result.ConnectionError, 0, "Request timeout", "", null, out entries);
        var ladder = error as LadderException;
        Check(ladder != null && ladder.Code == "timeout" && ladder.Status == 0 && ladder.IsRetryable, "Unity's 'Request timeout' is the timeout: " + Describe(error));

        error = Answer(client, UnityWebRequest.Result.ConnectionError, 0, "Cannot connect to destination host", "", null, out entries);
        ladder = error as LadderException;
        Check(ladder != null && ladder.Code == "unreachable" && ladder.IsRetryable, "a connection error is unreachable: " + Describe(error));

        error = Answer(client, UnityWebRequest.Result.DataProcessingError, 200, "Malformed data", "", null, out entries);
        ladder = error as LadderException;
        Check(ladder != null && ladder.Code == "bad_response" && ladder.Status == 200 && !ladder.IsRetryable, "DataProcessingError is mapped (bad_response): " + Describe(error));

        error = Answer(client, UnityWebRequest.Result.ProtocolError, 429, "HTTP/1.1 429 Too Many Requests", "{\"error\":{\"code\":\"rate_limited\",\"message\":\"slow down\"}}",
            new Dictionary<string, string> { { "Retry-After", "2" } }, out entries);
        ladder = error as LadderException;
        Check(ladder != null && ladder.Status == 429 && ladder.Code == "rate_limited" && ladder.RetryAfter == TimeSpan.FromSeconds(2) && ladder.IsRetryable, "a 429 carries its Retry-After: " + Describe(error));

        error = Answer(client, UnityWebRequest.Result.ProtocolError, 409, "HTTP/1.1 409 Conflict", "{\"error\":{\"code\":\"match_id_reused\",\"message\":\"used\"}}", null, out entries);
        ladder = error as LadderException;
        Check(ladder != null && ladder.Status == 409 && ladder.Code == "match_id_reused" && !ladder.IsRetryable, "a 409 is the server's error: " + Describe(error));

        // Cancellation aborts the request (on this, the main, thread) and throws OperationCanceledException.
        using (var cancel = new CancellationTokenSource())
        {
            Task<LeaderboardEntry[]> call = client.GetLeaderboardAsync("ranked", cancellationToken: cancel.Token);
            cancel.Cancel();
            Exception cancelled = null;
            try
            {
                call.GetAwaiter().GetResult();
            }
            catch (Exception thrown)
            {
                cancelled = thrown;
            }
            Check(cancelled is OperationCanceledException && UnityWebRequest.Last.error == "Request aborted", "cancellation aborts the request: " + Describe(cancelled));
        }
        // The read routes through UnityWebRequest: a ladder's rules kept as the server wrote
        // them, and a player who has not played reading as an empty history.
        Task<LadderInfo> described = client.GetLadderAsync("ranked");
        Check(UnityWebRequest.Last.method == "GET" && UnityWebRequest.Last.url == "https://ladder.example.com/v1/ladders/ranked", "GetLadderAsync: GET " + UnityWebRequest.Last.url);
        UnityWebRequest.Last.StandInAnswer(UnityWebRequest.Result.Success, 200, null,
            "{\"name\":\"ranked\",\"players\":2,\"last_seq\":7,\"season\":3,\"schedule\":{\"season_end\":\"0 0 1 * *\",\"decay\":null},"
            + "\"next\":{\"season_end\":1798761600.0,\"decay\":null},\"rules\":{\n  \"initial_rating\": 1450.0\n},\"next_rules\":null}", null);
        LadderInfo info = described.IsCompleted && !described.IsFaulted ? described.Result : null;
        Check(info != null && info.Season == 3 && info.LastSeq == 7 && info.RulesJson == "{\n  \"initial_rating\": 1450.0\n}" && info.NextRulesJson == null
            && info.SeasonEndSchedule == "0 0 1 * *" && info.DecaySchedule == null && info.NextSeasonEnd == new DateTimeOffset(2027, 1, 1, 0, 0, 0, TimeSpan.Zero) && info.NextDecay == null,
            "GetLadderAsync reads the description (rules as written, schedule, next times): " + (info != null ? info.RulesJson : Describe(described.Exception)));
        Task<HistoryPage> history = client.GetHistoryAsync("ranked", "newcomer", 42, 5);
        Check(UnityWebRequest.Last.url == "https://ladder.example.com/v1/ladders/ranked/players/newcomer/matches?limit=5&before=42", "GetHistoryAsync: " + UnityWebRequest.Last.url);
        UnityWebRequest.Last.StandInAnswer(UnityWebRequest.Result.ProtocolError, 404, "HTTP/1.1 404 Not Found", "{\"error\":{\"code\":\"unknown_player\",\"message\":\"no such player\"}}", null);
        Check(history.IsCompleted && !history.IsFaulted && history.Result.Entries.Length == 0 && history.Result.Before == null, "a player who has not played has an empty history");

        // PreviewAsync sends its three reads at once, each made on the main thread (where
        // UnityWebRequest must be made), and fails with the server's error.
        UnityWebRequest.Made.Clear();
        Task<MatchPreview> preview = client.PreviewAsync("ranked", "alice", "bob", 1.0);
        var urls = new List<string>();
        foreach (UnityWebRequest made in UnityWebRequest.Made)
        {
            urls.Add(made.url.Substring("https://ladder.example.com".Length));
        }
        Check(string.Join(" ", urls) == "/v1/ladders/ranked /v1/ladders/ranked/players/alice /v1/ladders/ranked/players/bob", "PreviewAsync: three requests at once: " + string.Join(" ", urls));
        foreach (UnityWebRequest made in UnityWebRequest.Made.ToArray())
        {
            made.StandInAnswer(UnityWebRequest.Result.ProtocolError, 404, "HTTP/1.1 404 Not Found", "{\"error\":{\"code\":\"unknown_ladder\",\"message\":\"no such ladder\"}}", null);
        }
        Exception refused = null;
        try
        {
            preview.GetAwaiter().GetResult();
        }
        catch (Exception thrown)
        {
            refused = thrown;
        }
        ladder = refused as LadderException;
        Check(ladder != null && ladder.Code == "unknown_ladder" && ladder.Status == 404, "PreviewAsync fails with the server's error: " + Describe(refused));

        client.Dispose();
        Console.WriteLine(passes + " passed, " + failures + " failed");
        return failures == 0 ? 0 : 1;
    }
}
