using System;
using System.Threading;
using System.Threading.Tasks;
using RankingElo.Ladder;

namespace RankingElo.Samples.RankedPlay
{
    /// <summary>
    /// A stand-in for the game's backend, for the demo only: it reports a queue's match with a
    /// report key. Never ship a report key in a game client: anyone could extract it and report
    /// any result. In a real game the dedicated server (or the studio's backend, after checking
    /// the game) calls <see cref="LadderClient.ReportMatchAsync(string, string, string, string, double, TimeSpan?, CancellationToken)"/>
    /// exactly like this.
    /// </summary>
    public sealed class DemoGameBackend : IGameBackend, IDisposable
    {
        private readonly LadderClient server;
        private readonly string ladder;

        /// <summary>A backend reporting to <paramref name="ladder"/> on the server at <paramref name="serverUrl"/>.</summary>
        /// <param name="serverUrl">The ladder server.</param>
        /// <param name="ladder">The ladder's name.</param>
        /// <param name="reportKey">A report key (<c>elo-ladder keys create --scope report</c>).</param>
        public DemoGameBackend(string serverUrl, string ladder, string reportKey)
        {
            server = new LadderClient(serverUrl, reportKey);
            this.ladder = ladder;
        }

        /// <summary>
        /// Reports the match as the queue made it: its id, side A first. Retried with backoff on
        /// a lost connection or a busy server; the server applies a match id once, so a retry
        /// never rates twice.
        /// </summary>
        /// <param name="match">The queue's match (a pair or two teams).</param>
        /// <param name="scoreA">Side A's score.</param>
        /// <param name="cancellationToken">Stops the report.</param>
        /// <returns>Every player's new state.</returns>
        public Task<MatchReport> ReportAsync(QueueMatch match, double scoreA, CancellationToken cancellationToken)
        {
            if (match == null) throw new ArgumentNullException("match");
            if (match.Sides.Length != 2) throw new ArgumentException("a free-for-all is reported with places", "match");
            if (match.Mode == "pair")
            {
                string a = match.Sides[0][0].Player, b = match.Sides[1][0].Player;
                return LadderClient.RetryAsync(token => server.ReportMatchAsync(ladder, match.Id, a, b, scoreA, cancellationToken: token), null, cancellationToken);
            }
            string[] teamA = Names(match.Sides[0]), teamB = Names(match.Sides[1]);
            return LadderClient.RetryAsync(token => server.ReportMatchAsync(ladder, match.Id, teamA, teamB, scoreA, cancellationToken: token), null, cancellationToken);
        }

        /// <summary>Releases the HTTP connection.</summary>
        public void Dispose()
        {
            server.Dispose();
        }

        private static string[] Names(QueueMatchPlayer[] side)
        {
            var names = new string[side.Length];
            for (int i = 0; i < side.Length; i++) names[i] = side[i].Player;
            return names;
        }
    }
}
