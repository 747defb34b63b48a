// The display-name field of the new-table, join and join-prompt forms: one input,
// remembered between visits, with one rule (a name is required).
import { lastName, NAME_MAX } from './api';
import { h } from './dom';
import { t } from './i18n';

export interface NameField {
  /** The label and the input, ready to place in a form. */
  field: HTMLElement;
  input: HTMLInputElement;
  /** The trimmed name; or null, after saying why in `err` and focusing the input. */
  read(err: HTMLElement): string | null;
}

export function nameField(): NameField {
  const input = h('input', {
    type: 'text',
    id: 'name',
    maxlength: NAME_MAX,
    autocomplete: 'nickname',
    placeholder: t('namePlaceholder'),
    value: lastName(),
    'data-testid': 'name',
  });
  const field = h('div', { class: 'field' }, h('label', { for: 'name' }, t('yourName')), input);
  return {
    field,
    input,
    read(err) {
      const name = input.value.trim();
      if (name) return name;
      err.textContent = t('needName');
      input.focus();
      return null;
    },
  };
}
