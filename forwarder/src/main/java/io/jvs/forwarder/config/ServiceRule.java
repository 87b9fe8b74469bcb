package io.jvs.forwarder.config;

import io.jvs.core.rules.RuleCommand;

/**
 * One ipvsadm rule of a configuration, with where it was written: a line of the configuration file that
 * starts with an ipvsadm option, or a line of a file a {@code rules} statement includes.
 *
 * @param source  the file it is in, as messages name it.
 * @param line    its 1-based line number there.
 * @param text    the line as written.
 * @param command the parsed command.
 */
public record ServiceRule(String source, int line, String text, RuleCommand command)
{
}
