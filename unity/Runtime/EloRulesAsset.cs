#if UNITY_5_3_OR_NEWER
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

        /// <summary>The engine's message for the current settings, or null when they are valid (refreshed on every edit).</summary>
        public string ValidationMessage { get; private set; }

        /// <summary>Creates the rules; dispose them when done.</summary>
        /// <returns>The rules.</returns>
        /// <exception cref="EloArgumentException">A setting is invalid; the message names it.</exception>
        public EloRules CreateRules()
        {
            return new EloRules(Settings);
        }

        private void OnValidate()
        {
            ValidationMessage = Settings.Validate();
        }
    }
}
#endif
