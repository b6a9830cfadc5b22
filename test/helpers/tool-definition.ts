// The bare tool definition factorly/testing gives plugin authors, for factorly's own tests too.
export { toolDefinition } from '../../src/testing/tool-definition.js';
