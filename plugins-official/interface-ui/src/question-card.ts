import type { AskQuestion } from 'factorly';
import type { PendingQuestion } from './approvals.js';
import { html, type Html } from './html.js';
import { csrfField, type PageContext } from './layout.js';

/**
 * A question an agent asks (`factorly.ask`) as the approvals page shows it, in the confirmation
 * cards' style (`head`: the question, who asks, the time left), an input fit for its type, Answer and
 * Dismiss.
 */
export function questionCard(p: PendingQuestion, head: Html, context: PageContext): Html {
  const { question } = p;
  const form = `answer-${p.callId}`;
  return html`<article class="approval" id="approval-${p.callId}" aria-labelledby="approval-${p.callId}-title">
  ${head}
  <form id="${form}" method="post" action="/approvals/${p.callId}/reply">${csrfField(context)}
    <label>${question.name} <small>${hintOf(question)}</small>${inputOf(question)}</label>
  </form>
  <div class="actions">
    <button type="submit" form="${form}" class="approve">Answer</button>
    <form method="post" action="/approvals/${p.callId}/dismiss">${csrfField(context)}<button type="submit" class="deny">Dismiss</button></form>
  </div>
</article>`;
}

/** What the answer must be, in words. */
function hintOf(question: AskQuestion): string {
  const facts = [
    question.type === 'enum' ? 'one of the choices' : question.type,
    question.required && question.default === undefined ? 'required' : 'optional',
    question.default === undefined ? undefined : `default ${JSON.stringify(question.default)}`,
    question.min === undefined ? undefined : `at least ${question.min}`,
    question.max === undefined ? undefined : `at most ${question.max}`,
  ];
  return facts.filter((fact) => fact !== undefined).join(' · ');
}

/** The input for the question's type; the answer is checked on submit whatever the browser lets through. */
function inputOf(question: AskQuestion): Html {
  const fallback = question.default === undefined ? '' : String(question.default);
  if (question.enum || question.type === 'boolean') {
    const choices = question.enum ?? ['true', 'false'];
    const blank = question.required && question.default === undefined ? '' : html`<option value=""></option>`;
    return html`<select name="answer">${blank}${choices.map(
      (choice) => html`<option value="${choice}"${choice === fallback ? html` selected` : ''}>${choice}</option>`,
    )}</select>`;
  }
  if (question.type === 'text' || question.type === 'json')
    return html`<textarea name="answer" rows="4" spellcheck="false">${fallback}</textarea>`;
  const numeric = question.type === 'integer' || question.type === 'number';
  return html`<input name="answer" value="${fallback}" autocomplete="off"${numeric ? html` inputmode="decimal"` : ''}>`;
}
