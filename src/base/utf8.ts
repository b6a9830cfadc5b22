/**
 * The one UTF-8 cut (the log's stored outputs, errors and params here; output truncation,
 * max_output and the built-in tools' read caps in the plugins), defined once in @factorly/text-kit,
 * which the official plugins share with factorly (they cannot import factorly at run time).
 */
export { truncateUtf8 } from '@factorly/text-kit';
