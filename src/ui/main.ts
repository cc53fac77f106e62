// Placeholder page until the UI issue: shows that the page loads and which backend tfjs picked.
export {};
const statusText = document.querySelector<HTMLElement>('[data-testid="status"]');
if (statusText) statusText.textContent = 'Ready (placeholder page: the trainer UI comes in a later issue).';
