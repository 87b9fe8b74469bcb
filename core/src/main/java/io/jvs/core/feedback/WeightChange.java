package io.jvs.core.feedback;

/**
 * A weight the feedback loop wants pushed into the scheduler.
 *
 * @param server         the server's identity, as the caller named it to the controller.
 * @param previousWeight the weight the scheduler holds now.
 * @param newWeight      the weight to give it, 0..2147483647; 0 when the server stopped answering.
 * @param <K>            the type the caller identifies servers by.
 */
public record WeightChange<K>(K server, int previousWeight, int newWeight)
{
}
