package io.jvs.core.feedback;

/**
 * The feedback loop's memory of one server.
 * <p>
 * The target weight is real-valued and carries every step, however small; the pushed weight is what
 * the scheduler holds. Keeping both means a steady pressure below the push threshold still builds up
 * until it is worth a push, instead of being rounded away each period.
 */
final class ServerFeedback
{
    final int defaultWeight;
    double targetWeight;
    int pushedWeight;
    boolean unreachable;

    ServerFeedback(final int defaultWeight)
    {
        this.defaultWeight = defaultWeight;
        this.targetWeight = defaultWeight;
        this.pushedWeight = defaultWeight;
    }

    boolean isAdjustable()
    {
        return defaultWeight != 0;
    }

    void restartFromDefault()
    {
        unreachable = false;
        targetWeight = defaultWeight;
        pushedWeight = defaultWeight;
    }
}
