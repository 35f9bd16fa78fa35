#if !UNITY_5_3_OR_NEWER
using System;

namespace RankingElo
{
    /// <summary>
    /// Outside Unity (the Mono build the tests use), stands for <c>UnityEngine.SerializeField</c>,
    /// which marks the private fields Unity serializes: the settings types carry it so that
    /// the Inspector, assets and <c>JsonUtility</c> store them.
    /// </summary>
    [AttributeUsage(AttributeTargets.Field)]
    internal sealed class SerializeFieldAttribute : Attribute
    {
    }

    /// <summary>
    /// Outside Unity, stands for <c>UnityEngine.TooltipAttribute</c>: the Inspector's hover
    /// text of a setting.
    /// </summary>
    [AttributeUsage(AttributeTargets.Field)]
    internal sealed class TooltipAttribute : Attribute
    {
        /// <summary>The text.</summary>
        public readonly string tooltip;

        /// <summary>A tooltip.</summary>
        /// <param name="tooltip">The text.</param>
        public TooltipAttribute(string tooltip)
        {
            this.tooltip = tooltip;
        }
    }

    [AttributeUsage(AttributeTargets.Field)]
    internal sealed class RangeAttribute : Attribute
    {
        public readonly float min;
        public readonly float max;

        public RangeAttribute(float min, float max)
        {
            this.min = min;
            this.max = max;
        }
    }

    [AttributeUsage(AttributeTargets.Field)]
    internal sealed class MinAttribute : Attribute
    {
        public readonly float min;

        public MinAttribute(float min)
        {
            this.min = min;
        }
    }
}
#endif
