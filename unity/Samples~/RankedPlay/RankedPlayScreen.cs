using System;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using RankingElo.Ladder;
using UnityEngine;
using UnityEngine.UIElements;

namespace RankingElo.Samples.RankedPlay
{
    /// <summary>
    /// Ranked play on UI Toolkit: sign in with a token, search with a cancel button and the
    /// waiting time, the match found with "+12 win / -20 loss" from the server, the result
    /// reported through the demo's game backend, then the leaderboard around the player and
    /// their latest matches. The screens are built in code on the <see cref="UIDocument"/> of
    /// this object (one is added with its own Panel Settings when missing), so the sample needs
    /// no UXML. The logic is <see cref="RankedPlayFlow"/>.
    /// </summary>
    public sealed class RankedPlayScreen : MonoBehaviour
    {
        [Tooltip("The elo-ladder server (for a Web build, start it with --cors-origin naming the page's origin).")]
        [SerializeField] private string serverUrl = "http://127.0.0.1:8080";

        [Tooltip("The ladder the queue belongs to.")]
        [SerializeField] private string ladder = "ranked";

        [Tooltip("A pair queue of that ladder (PUT /v1/ladders/{ladder}/queues/{queue}).")]
        [SerializeField] private string queue = "solo";

        [Tooltip("DEMO ONLY: the report key the stand-in game backend reports with. A shipped game never holds one; its server reports.")]
        [SerializeField] private string demoReportKey = "";

        [Tooltip("How many leaderboard lines around the player.")]
        [Range(3, 51)]
        [SerializeField] private int leaderboardLines = 11;

        private RankedPlayFlow flow;
        private DemoGameBackend backend;
        private VisualElement signIn, lobby, searching, found, result;
        private Label status, error, waitingLabel, versusLabel, previewLabel, resultLabel;
        private TextField tokenField;
        private VisualElement board, history;
#if !UNITY_2022_2_OR_NEWER
        private readonly CancellationTokenSource destroyed = new CancellationTokenSource();
#endif

        /// <summary>Stops every call of this screen when it is destroyed (Unity 2022.2+ has it built in).</summary>
        private CancellationToken Lifetime
        {
#if UNITY_2022_2_OR_NEWER
            get { return destroyCancellationToken; }
#else
            get { return destroyed.Token; }
#endif
        }

        private void OnEnable()
        {
            UIDocument document = GetComponent<UIDocument>();
            if (document == null)
            {
                document = gameObject.AddComponent<UIDocument>();
                document.panelSettings = ScriptableObject.CreateInstance<PanelSettings>();
            }
            flow = new RankedPlayFlow(serverUrl, ladder, queue);
            backend = new DemoGameBackend(serverUrl, ladder, string.IsNullOrEmpty(demoReportKey) ? "-" : demoReportKey);
            flow.Changed += Show;
            Build(document.rootVisualElement);
            Show();
        }

        private void OnDisable()
        {
            if (flow != null)
            {
                flow.CancelSearch();
                flow.Changed -= Show;
                flow.Dispose();
                backend.Dispose();
                flow = null;
            }
        }

#if !UNITY_2022_2_OR_NEWER
        private void OnDestroy()
        {
            destroyed.Cancel();
            destroyed.Dispose();
        }
#endif

        private void Update()
        {
            if (flow != null && flow.Stage == RankedPlayStage.Queueing)
            {
                TimeSpan waited = flow.WaitingTime;
                waitingLabel.text = "Searching for an opponent… " + ((int)waited.TotalMinutes).ToString(CultureInfo.InvariantCulture) + ":" + waited.Seconds.ToString("00", CultureInfo.InvariantCulture);
            }
        }

        private void Build(VisualElement root)
        {
            root.Clear();
            root.style.paddingLeft = 24;
            root.style.paddingTop = 24;
            root.style.backgroundColor = new Color(0.11f, 0.12f, 0.15f);
            status = Text(root, "", 22, true);
            error = Text(root, "", 14, false);
            error.style.color = new Color(1f, 0.45f, 0.4f);

            signIn = Panel(root);
            Text(signIn, "Sign in with the player's token (for the demo: elo-ladder tokens mint --player NAME).", 14, false);
            tokenField = new TextField("Token");
            tokenField.isPasswordField = true;
            signIn.Add(tokenField);
            signIn.Add(MakeButton("Sign in", OnSignIn));

            lobby = Panel(root);
            lobby.Add(MakeButton("Find a match", OnFind));
            board = Panel(root);
            history = Panel(root);

            searching = Panel(root);
            waitingLabel = Text(searching, "", 16, false);
            searching.Add(MakeButton("Cancel", () => flow.CancelSearch()));

            found = Panel(root);
            versusLabel = Text(found, "", 20, true);
            previewLabel = Text(found, "", 18, false);
            Text(found, "Play the game, then the game's server reports it (here: the demo backend):", 14, false);
            VisualElement results = Panel(found);
            results.style.flexDirection = FlexDirection.Row;
            results.Add(MakeButton("I won", () => OnReport(1.0)));
            results.Add(MakeButton("Draw", () => OnReport(0.5)));
            results.Add(MakeButton("I lost", () => OnReport(0.0)));

            result = Panel(root);
            resultLabel = Text(result, "", 20, true);
            result.Add(MakeButton("Back to the lobby", OnBackToLobby));
        }

        private void Show()
        {
            if (flow == null) return;
            RankedPlayStage stage = flow.Stage;
            Visible(signIn, stage == RankedPlayStage.SignedOut);
            Visible(lobby, stage == RankedPlayStage.Lobby);
            Visible(board, stage == RankedPlayStage.Lobby || stage == RankedPlayStage.Result);
            Visible(history, stage == RankedPlayStage.Lobby || stage == RankedPlayStage.Result);
            Visible(searching, stage == RankedPlayStage.Queueing);
            Visible(found, stage == RankedPlayStage.MatchFound);
            Visible(result, stage == RankedPlayStage.Result);
            error.text = flow.Error ?? "";
            status.text = flow.Player == null
                ? "Ranked play"
                : flow.Player + " · " + flow.Rating.ToString("0.#", CultureInfo.InvariantCulture) + (flow.Rank > 0 ? " · rank " + flow.Rank.ToString(CultureInfo.InvariantCulture) : " · unranked");
            if (stage == RankedPlayStage.MatchFound)
            {
                versusLabel.text = "Match found: you (" + flow.MatchedRating.ToString("0.#", CultureInfo.InvariantCulture) + ") vs " + flow.Opponent + " (" + flow.OpponentRating.ToString("0.#", CultureInfo.InvariantCulture) + ")";
                previewLabel.text = flow.PreviewLine;
            }
            if (stage == RankedPlayStage.Result && flow.Outcome != null)
            {
                RankedPlayOutcome outcome = flow.Outcome;
                string what = outcome.Score == 1 ? "Victory" : outcome.Score == 0 ? "Defeat" : "Draw";
                resultLabel.text = what + ": " + RankedPlayFlow.FormatChange(outcome.Change) + " → " + outcome.RatingAfter.ToString("0.#", CultureInfo.InvariantCulture) + (outcome.MatchesPreview ? " (as previewed)" : "");
            }
        }

        private async void OnSignIn()
        {
            if (await flow.SignInAsync(tokenField.value, Lifetime)) await ShowBoardsAsync();
        }

        private async void OnFind()
        {
            await flow.FindMatchAsync(Lifetime);
        }

        private async void OnReport(double score)
        {
            if (await flow.ReportResultAsync(backend, score, Lifetime) != null) await ShowBoardsAsync();
        }

        private async void OnBackToLobby()
        {
            await flow.BackToLobbyAsync(Lifetime);
            await ShowBoardsAsync();
        }

        /// <summary>The leaderboard around the player and their latest matches.</summary>
        private async Task ShowBoardsAsync()
        {
            try
            {
                LeaderboardEntry[] lines = await flow.LoadLeaderboardAsync(leaderboardLines, Lifetime);
                HistoryPage page = await flow.LoadHistoryAsync(10, Lifetime);
                board.Clear();
                Text(board, "Leaderboard", 18, true);
                foreach (LeaderboardEntry line in lines)
                {
                    Label row = Text(board, "#" + line.Rank.ToString(CultureInfo.InvariantCulture) + "  " + line.Player + "  " + line.Rating.ToString("0.#", CultureInfo.InvariantCulture), 14, line.Player == flow.Player);
                    if (line.Player == flow.Player) row.style.color = new Color(1f, 0.85f, 0.3f);
                }
                history.Clear();
                Text(history, "Latest matches", 18, true);
                foreach (HistoryEntry entry in page.Entries)
                {
                    string change = RankedPlayFlow.FormatChange(entry.RatingAfter - entry.RatingBefore);
                    Text(history, entry.Time.ToLocalTime().ToString("g", CultureInfo.CurrentCulture) + "  " + entry.Kind + "  " + change + (entry.Annulled ? " (annulled)" : ""), 14, false);
                }
            }
            catch (LadderException failure)
            {
                error.text = failure.Message;
            }
            catch (OperationCanceledException)
            {
                // The screen was destroyed.
            }
        }

        private static VisualElement Panel(VisualElement parent)
        {
            var panel = new VisualElement();
            panel.style.marginBottom = 12;
            parent.Add(panel);
            return panel;
        }

        private static Label Text(VisualElement parent, string text, int size, bool bold)
        {
            var label = new Label(text);
            label.style.fontSize = size;
            label.style.color = Color.white;
            label.style.unityFontStyleAndWeight = bold ? FontStyle.Bold : FontStyle.Normal;
            parent.Add(label);
            return label;
        }

        private static Button MakeButton(string text, Action clicked)
        {
            var button = new Button(clicked) { text = text };
            button.style.fontSize = 16;
            button.style.marginRight = 8;
            return button;
        }

        private static void Visible(VisualElement element, bool visible)
        {
            element.style.display = visible ? DisplayStyle.Flex : DisplayStyle.None;
        }
    }
}
