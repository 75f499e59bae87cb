import type { JobRow } from '../jobs.repository';
import { toJobResponse } from './job.response';

const row = (over: Partial<JobRow> = {}): JobRow => ({
  id: 'job_1',
  slug: 'backend-engineer',
  title: 'Backend engineer',
  description: 'APIs',
  employment_type: 'full_time',
  workplace_type: 'remote',
  seniority: 'mid',
  location: 'Accra',
  salary_min: '900000',
  salary_max: '1500000',
  salary_currency: 'GHS',
  salary_period: 'month',
  salary_hidden: false,
  skills: ['node'],
  application_deadline: null,
  is_featured: false,
  published_at: new Date(Date.UTC(2026, 2, 1)),
  created_at: new Date(Date.UTC(2026, 1, 28)),
  ...over,
});

describe('job response', () => {
  it('salaries selected as text become numbers in the minor unit', () => {
    const j = toJobResponse(row());
    expect([j.salary_min_pesewas, j.salary_max_pesewas, j.application_deadline]).toEqual([
      900000,
      1500000,
      null,
    ]);
  });

  it('a hidden salary (null from SQL) stays null, never 0', () => {
    const j = toJobResponse(row({ salary_hidden: true, salary_min: null, salary_max: null }));
    expect([j.salary_min_pesewas, j.salary_max_pesewas, j.salary_hidden]).toEqual([null, null, true]);
  });
});
