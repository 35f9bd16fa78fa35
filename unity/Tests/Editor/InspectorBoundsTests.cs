using System;
using System.Collections.Generic;
using System.Reflection;
using NUnit.Framework;
#if UNITY_5_3_OR_NEWER
using MinAttribute = UnityEngine.MinAttribute;
using RangeAttribute = UnityEngine.RangeAttribute;
#endif

namespace RankingElo.Tests
{
    /// <summary>
    /// The Inspector's bounds on the rules' settings ([Min] and [Range], from the configuration
    /// reference) are the engine's: each bound is accepted by the engine and the value just
    /// past it is refused, so a designer's slider never offers a value the engine rejects, and
    /// never hides one it takes.
    /// </summary>
    [TestFixture]
    public class InspectorBoundsTests
    {
        private static readonly Type[] Owners = { typeof(EloSettings), typeof(League), typeof(KPolicy), typeof(SeasonReset), typeof(DecaySettings) };

        /// <summary>Fresh settings with one league whose overrides are all on, so every bounded field reaches the engine.</summary>
        private static EloSettings Settings()
        {
            var settings = new EloSettings();
            var league = new League("Only", 0f, 32);
            foreach (FieldInfo flag in typeof(League).GetFields(BindingFlags.Instance | BindingFlags.NonPublic))
            {
                if (flag.FieldType == typeof(bool) && flag.Name.StartsWith("overrides", StringComparison.Ordinal)) flag.SetValue(league, true);
            }
            settings.Leagues.Add(league);
            return settings;
        }

        /// <summary>The object of <paramref name="settings"/> that holds fields of <paramref name="owner"/>.</summary>
        private static object OwnerIn(EloSettings settings, Type owner)
        {
            if (owner == typeof(EloSettings)) return settings;
            if (owner == typeof(League)) return settings.Leagues[0];
            foreach (FieldInfo field in typeof(EloSettings).GetFields(BindingFlags.Instance | BindingFlags.NonPublic))
            {
                if (field.FieldType == owner) return field.GetValue(settings);
            }
            throw new InvalidOperationException("EloSettings holds no " + owner.Name);
        }

        private static bool Accepted(FieldInfo field, double value)
        {
            EloSettings settings = Settings();
            field.SetValue(OwnerIn(settings, field.DeclaringType), field.FieldType == typeof(int) ? (object)(int)value : field.FieldType == typeof(float) ? (object)(float)value : value);
            try
            {
                using (new EloRules(settings)) return true;
            }
            catch (EloArgumentException)
            {
                return false;
            }
        }

        /// <summary>Every [Min] and [Range] bound is the edge of what the engine accepts.</summary>
        [Test]
        public void EveryBoundIsTheEdgeOfTheEnginesRange()
        {
            var checkedFields = new List<string>();
            foreach (Type owner in Owners)
            {
                foreach (FieldInfo field in owner.GetFields(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public))
                {
                    var min = (MinAttribute)Attribute.GetCustomAttribute(field, typeof(MinAttribute));
                    var range = (RangeAttribute)Attribute.GetCustomAttribute(field, typeof(RangeAttribute));
                    string name = owner.Name + "." + field.Name;
                    if (min != null)
                    {
                        Assert.That(Accepted(field, min.min), Is.True, name + " = " + min.min + " (its [Min]) must be accepted");
                        Assert.That(Accepted(field, min.min - 1), Is.False, name + " below its [Min] must be refused");
                        checkedFields.Add(name);
                    }
                    if (range != null)
                    {
                        Assert.That(Accepted(field, range.min) && Accepted(field, range.max), Is.True, name + ": both ends of its [Range] must be accepted");
                        Assert.That(Accepted(field, range.min - 0.5), Is.False, name + " below its [Range] must be refused");
                        Assert.That(Accepted(field, range.max + 0.5), Is.False, name + " above its [Range] must be refused");
                        checkedFields.Add(name);
                    }
                }
            }
            Assert.That(checkedFields.Count, Is.EqualTo(13), "the bounded fields: " + string.Join(", ", checkedFields.ToArray()));
        }
    }
}
