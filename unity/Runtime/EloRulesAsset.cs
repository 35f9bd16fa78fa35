#if UNITY_5_3_OR_NEWER
using System;
using UnityEngine;

namespace RankingElo
{
    /// <summary>
    /// Rating rules stored as an asset (<c>Create &gt; Ranking ELO &gt; Rules</c>), so designers
    /// edit every setting of the engine in the Inspector: the expected-score model and its
    /// scale, the K policy and its tiers, K combination, rounding, floor, initial rating,
    /// streak alpha, the points K term, L and V, leagues with their names, bounds and K/L/V,
    /// and the zero-sum total. The Inspector shows the engine's own message for an invalid
    /// setting. Create the runtime object with <see cref="CreateRules"/>.
    /// </summary>
    [CreateAssetMenu(menuName = "Ranking ELO/Rules", fileName = "EloRules", order = 100)]
    public sealed class EloRulesAsset : ScriptableObject
    {
        [SerializeField] private EloSettings settings = new EloSettings();

        /// <summary>The settings the asset holds (changes are saved with the asset in the Editor).</summary>
        public EloSettings Settings
        {
            get { return settings ?? (settings = new EloSettings()); }
        }

        [NonSerialized] private string validationMessage;
        [NonSerialized] private bool validated;

        /// <summary>
        /// The engine's message for the current settings, or null when they are valid. Computed
        /// by the engine when read (the Inspector reads it) and kept until the next edit; loading
        /// the asset runs no native code.
        /// </summary>
        /// <exception cref="DllNotFoundException">The native library is missing or cannot load here (the message names the binary).</exception>
        public string ValidationMessage
        {
            get
            {
                if (!validated)
                {
                    validationMessage = Settings.Validate();
                    validated = true;
                }
                return validationMessage;
            }
        }

        /// <summary>Creates the rules; dispose them when done.</summary>
        /// <returns>The rules.</returns>
        /// <exception cref="EloArgumentException">A setting is invalid; the message names it.</exception>
        public EloRules CreateRules()
        {
            return new EloRules(Settings);
        }

        // Unity calls OnValidate when it loads the asset too, not only after an edit in the
        // Inspector: native code here would load the plugin (and on Windows lock the DLL) in
        // every Editor that opens a project with a rules asset. It only marks the message stale.
        private void OnValidate()
        {
            // A curve chosen in the Inspector starts from its own default parameter.
            Settings.ExpectedScore.FollowKind();
            validated = false;
        }
    }
}
#endif
