using UnityEditor;
using UnityEngine;

namespace RankingElo.Editor
{
    /// <summary>
    /// The Inspector of <see cref="EloRulesAsset"/>: every setting, the engine's message when
    /// one is invalid, and a preview that plays a quick seeded season under the rules
    /// (<see cref="RulesPreview"/>) and plots final rating against hidden skill with the
    /// league counts, so a designer sees what a change does. The season is played on a worker
    /// thread once per change (<see cref="RulesPreviewRunner"/>), never in the GUI pass.
    /// </summary>
    [CustomEditor(typeof(EloRulesAsset))]
    public sealed class EloRulesAssetEditor : UnityEditor.Editor
    {
        // Previews are played off the GUI pass, once per change of the settings.
        private readonly RulesPreviewRunner previews = new RulesPreviewRunner(200, 4000, 1);

        /// <summary>Repaints while a preview is being played, so it shows once ready.</summary>
        /// <returns>Whether a preview is being played.</returns>
        public override bool RequiresConstantRepaint()
        {
            return previews.IsRunning;
        }

        /// <summary>Draws the settings, the validation message and the preview.</summary>
        public override void OnInspectorGUI()
        {
            var asset = (EloRulesAsset)target;
            DrawDefaultInspector();
            // The asset validates with the engine when the Inspector asks (not when it loads).
            string message = asset.ValidationMessage;
            if (message != null)
            {
                EditorGUILayout.HelpBox(message, MessageType.Error);
                return;
            }
            EditorGUILayout.HelpBox("The rules are valid.", MessageType.Info);
            bool current;
            RulesPreview.Result preview = previews.Request(asset.Settings, out current);
            if (preview == null)
            {
                EditorGUILayout.LabelField(previews.IsRunning ? "Playing the preview season…" : "No preview for these rules.");
                return;
            }
            DrawPreview(preview);
            if (!current)
            {
                EditorGUILayout.LabelField("(the preview of the previous settings: the new one is playing)");
            }
        }

        private static void DrawPreview(RulesPreview.Result result)
        {
            EditorGUILayout.LabelField("Preview: 200 players, 4,000 matchmade games (seed 1)");
            Rect area = GUILayoutUtility.GetRect(300, 200);
            EditorGUI.DrawRect(area, new Color(0.12f, 0.12f, 0.12f));
            float minSkill = result.MinSkill, maxSkill = result.MaxSkill;
            float minRating = result.MinRating, maxRating = result.MaxRating;
            for (int i = 0; i < result.Skills.Length; i++)
            {
                float x = area.x + (result.Skills[i] - minSkill) / (maxSkill - minSkill + 1e-6f) * (area.width - 3);
                float y = area.y + area.height - 3 - (result.Ratings[i] - minRating) / (maxRating - minRating + 1e-6f) * (area.height - 3);
                EditorGUI.DrawRect(new Rect(x, y, 3, 3), LeagueColours.Of(result.Leagues[i]));
            }
            EditorGUILayout.LabelField("x: hidden skill " + minSkill.ToString("F0") + " to " + maxSkill.ToString("F0")
                + "; y: rating " + minRating.ToString("F0") + " to " + maxRating.ToString("F0"));
            EditorGUILayout.LabelField("Rank correlation with skill: " + result.Spearman.ToString("F3"));
            for (int league = 0; league < result.LeagueCounts.Length; league++)
            {
                EditorGUILayout.LabelField(result.LeagueNames[league], result.LeagueCounts[league] + " players");
            }
        }
    }

    /// <summary>The colour of league <c>i</c> (lowest first) in previews.</summary>
    internal static class LeagueColours
    {
        private static readonly Color[] Colours =
        {
            new Color(0.80f, 0.50f, 0.20f), new Color(0.75f, 0.75f, 0.80f), new Color(1.00f, 0.84f, 0.00f),
            new Color(0.40f, 0.90f, 0.90f), new Color(0.70f, 0.50f, 1.00f), new Color(1.00f, 0.40f, 0.40f),
        };

        internal static Color Of(int league)
        {
            return Colours[league % Colours.Length];
        }
    }
}
