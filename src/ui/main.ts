// Placeholder page until the UI issue: shows that the page loads and which backend tfjs picked.
const status = document.querySelector<HTMLElement>('[data-testid="status"]');
if (status) status.textContent = 'Ready (placeholder page: the trainer UI comes in a later issue).';
