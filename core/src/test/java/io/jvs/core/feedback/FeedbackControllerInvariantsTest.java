package io.jvs.core.feedback;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random servers, settings and reports from fixed seeds, so that a failure replays exactly.
 */
class FeedbackControllerInvariantsTest
{
    private static final int PERIODS = 40;
    private static final int[] DEFAULT_WEIGHTS = { 0, 1, 2, 3, 10, 50, 100, 1000, 7000 };

    static Stream<Arguments> seedsAndClamps()
    {
        return LongStream.rangeClosed(1, 20).boxed()
            .flatMap(seed -> Stream.of(LowerClamp.values()).map(clamp -> Arguments.of(seed, clamp)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("seedsAndClamps")
    void shouldKeepEveryInvariantWhenLoadsAreRandom(final long seed, final LowerClamp lowerClamp)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final FeedbackSettings settings = randomSettings(random, lowerClamp);
        final Map<String, Integer> defaults = randomServers(random);
        final FeedbackController<String> controller = configured(settings, defaults);
        final List<Map<String, LoadReport>> history = new ArrayList<>();

        for (int period = 0; period < PERIODS; period++)
        {
            final Map<String, LoadReport> reports = randomReports(random, defaults);
            final Map<String, Integer> before = weights(controller, defaults);
            final String raised = pickAnswered(random, reports);
            final FeedbackController<String> twin = replayed(settings, defaults, history);

            final List<WeightChange<String>> changes = controller.adjust(period, reports);

            assertChangesAreJustified(settings, controller, defaults, before, changes);
            assertWeightsWithinClamps(settings, controller, defaults);
            if (raised != null)
            {
                twin.adjust(period, withHigherCpuLoad(reports, raised, 0.01 + random.nextDouble(2.0)));
                assertThat(twin.targetWeight(raised)).isLessThanOrEqualTo(controller.targetWeight(raised));
                assertThat(twin.weight(raised)).isLessThanOrEqualTo(controller.weight(raised));
            }
            history.add(reports);
        }
    }

    private static void assertChangesAreJustified(
        final FeedbackSettings settings,
        final FeedbackController<String> controller,
        final Map<String, Integer> defaults,
        final Map<String, Integer> before,
        final List<WeightChange<String>> changes)
    {
        final Map<String, WeightChange<String>> changed = new HashMap<>();
        for (final WeightChange<String> change : changes)
        {
            final String server = change.server();
            assertThat(changed.put(server, change)).as("one change per server").isNull();
            assertThat(defaults.get(server)).as("default weight 0 is never adjusted").isNotZero();
            assertThat(change.previousWeight()).isEqualTo(before.get(server));
            assertThat(change.newWeight()).isEqualTo(controller.weight(server));
            if (change.newWeight() == 0)
            {
                assertThat(controller.isUnreachable(server)).isTrue();
            }
            else if (change.previousWeight() == 0)
            {
                assertThat(change.newWeight()).as("restart").isEqualTo(defaults.get(server));
            }
            else
            {
                assertThat((double)Math.abs(change.newWeight() - change.previousWeight()))
                    .isGreaterThan(settings.pushThreshold(change.previousWeight()));
            }
        }
        for (final String server : defaults.keySet())
        {
            if (!changed.containsKey(server))
            {
                assertThat(controller.weight(server)).as("unchanged " + server).isEqualTo(before.get(server));
            }
        }
    }

    private static void assertWeightsWithinClamps(
        final FeedbackSettings settings,
        final FeedbackController<String> controller,
        final Map<String, Integer> defaults)
    {
        for (final Map.Entry<String, Integer> entry : defaults.entrySet())
        {
            final String server = entry.getKey();
            final int defaultWeight = entry.getValue();
            if (defaultWeight == 0 || controller.isUnreachable(server))
            {
                assertThat(controller.weight(server)).isZero();
                continue;
            }
            final int lowest = settings.lowestWeight(defaultWeight);
            final int highest = settings.highestWeight(defaultWeight);
            assertThat(controller.weight(server)).isBetween(lowest, highest);
            assertThat(controller.targetWeight(server)).isBetween((double)lowest, (double)highest);
        }
    }

    private static FeedbackSettings randomSettings(final SplittableRandom random, final LowerClamp lowerClamp)
    {
        final double[] fractions = { 0.0, 0.05, 0.2 };
        final double[] minimums = { 0.0, 1.0, 3.0 };
        return new FeedbackSettings(
            FeedbackSettings.DEFAULT_COEFFICIENTS,
            0.5 + random.nextDouble(50.0),
            FeedbackSettings.DEFAULT_TARGET_LOAD,
            1 + random.nextInt(20),
            FeedbackSettings.DEFAULT_PERIOD_NS,
            lowerClamp,
            fractions[random.nextInt(fractions.length)],
            minimums[random.nextInt(minimums.length)]);
    }

    private static Map<String, Integer> randomServers(final SplittableRandom random)
    {
        final Map<String, Integer> defaults = new LinkedHashMap<>();
        final int count = 1 + random.nextInt(6);
        for (int i = 0; i < count; i++)
        {
            defaults.put("s" + i, DEFAULT_WEIGHTS[random.nextInt(DEFAULT_WEIGHTS.length)]);
        }
        return defaults;
    }

    private static Map<String, LoadReport> randomReports(
        final SplittableRandom random, final Map<String, Integer> defaults)
    {
        final Map<String, LoadReport> reports = new LinkedHashMap<>();
        for (final String server : defaults.keySet())
        {
            final int roll = random.nextInt(10);
            final long connections = random.nextInt(4) == 0 ? 0 : random.nextLong(1_000);
            if (roll == 0)
            {
                continue;
            }
            if (roll == 1)
            {
                reports.put(server, LoadReport.unanswered(connections));
                continue;
            }
            reports.put(server, LoadReport.answered(
                connections,
                random.nextDouble(3.0), random.nextDouble(3.0), random.nextDouble(3.0),
                random.nextDouble(3.0), random.nextDouble(3.0)));
        }
        return reports;
    }

    private static String pickAnswered(final SplittableRandom random, final Map<String, LoadReport> reports)
    {
        final List<String> answered = new ArrayList<>();
        reports.forEach((server, report) ->
        {
            if (report.answered())
            {
                answered.add(server);
            }
        });
        return answered.isEmpty() ? null : answered.get(random.nextInt(answered.size()));
    }

    private static Map<String, LoadReport> withHigherCpuLoad(
        final Map<String, LoadReport> reports, final String server, final double extraLoad)
    {
        final Map<String, LoadReport> raised = new LinkedHashMap<>(reports);
        final LoadReport report = reports.get(server);
        raised.put(server, LoadReport.answered(
            report.newConnections(), report.cpuLoad() + extraLoad, report.disk(), report.memory(),
            report.processes(), report.responseTime()));
        return raised;
    }

    private static FeedbackController<String> replayed(
        final FeedbackSettings settings,
        final Map<String, Integer> defaults,
        final List<Map<String, LoadReport>> history)
    {
        final FeedbackController<String> controller = configured(settings, defaults);
        for (int period = 0; period < history.size(); period++)
        {
            controller.adjust(period, history.get(period));
        }
        return controller;
    }

    private static FeedbackController<String> configured(
        final FeedbackSettings settings, final Map<String, Integer> defaults)
    {
        final FeedbackController<String> controller = new FeedbackController<>(settings);
        defaults.forEach(controller::configure);
        return controller;
    }

    private static Map<String, Integer> weights(
        final FeedbackController<String> controller, final Map<String, Integer> defaults)
    {
        final Map<String, Integer> weights = new HashMap<>();
        defaults.keySet().forEach(server -> weights.put(server, controller.weight(server)));
        return weights;
    }
}
