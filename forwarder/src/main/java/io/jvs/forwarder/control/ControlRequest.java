package io.jvs.forwarder.control;

import java.util.List;

/**
 * A request to the daemon over its control socket ({@link ControlProtocol} frames it).
 */
public sealed interface ControlRequest
{
    /**
     * An ipvsadm command line, run by the daemon against its live state as ipvsadm 1.31 would run it against the
     * kernel's: the daemon parses and checks it, so every client gets the same checks.
     *
     * @param arguments the arguments after the program name.
     * @param input     standard input, for {@code -R}; empty otherwise.
     */
    record Ipvsadm(List<String> arguments, byte[] input) implements ControlRequest
    {
        public Ipvsadm
        {
            arguments = List.copyOf(arguments);
            input = input.clone();
        }

        @Override
        public byte[] input()
        {
            return input.clone();
        }
    }

    /** The daemon's counters as {@code name value} lines. */
    record Status() implements ControlRequest
    {
    }

    /** Read the configuration file again and apply what changed (as SIGHUP). */
    record Reload() implements ControlRequest
    {
    }
}
