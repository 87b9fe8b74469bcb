package io.jvs.forwarder.control;

import java.nio.charset.StandardCharsets;

/**
 * The daemon's answer to a {@link ControlRequest}.
 */
public sealed interface ControlResponse
{
    /**
     * What the request printed and its exit status, for the client to pass on unchanged.
     *
     * @param status the exit status (ipvsadm's for an ipvsadm request).
     * @param output standard output's bytes.
     * @param error  standard error's bytes.
     */
    record Result(int status, byte[] output, byte[] error) implements ControlResponse
    {
        public Result
        {
            output = output.clone();
            error = error.clone();
        }

        /** A result whose output and error are text. */
        public static Result of(final int status, final String output, final String error)
        {
            return new Result(status, output.getBytes(StandardCharsets.UTF_8), error.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public byte[] output()
        {
            return output.clone();
        }

        @Override
        public byte[] error()
        {
            return error.clone();
        }
    }

    /**
     * The request was refused before anything was done (malformed, too large, too slow, not permitted).
     *
     * @param reason why, in one line.
     */
    record Refused(String reason) implements ControlResponse
    {
    }
}
