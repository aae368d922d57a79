# index/show/create/update/destroy for a model, declared per controller with `crud`.
# index: equality filters (?list_id=1&done=true), ?sort=f,-g (an id tie-breaker is always
# added), kaminari ?page=N&per_page=M (default 20, at most 100), X-Total-Count and Link.
module CrudActions
  extend ActiveSupport::Concern

  included do
    class_attribute :crud_model, :crud_permit, :crud_filters, :crud_preload, instance_writer: false
  end

  class_methods do
    def crud(model, permit:, filters: [], preload: [])
      self.crud_model = model
      self.crud_permit = permit
      self.crud_filters = filters
      self.crud_preload = preload
      keys = permit.flat_map { |key| key.is_a?(Hash) ? key.keys : [key] }.map(&:to_s)
      wrap_parameters model.model_name.param_key, include: keys, format: [:json]
    end
  end

  def index
    order = sort_order
    return if performed?

    filters = params.slice(*crud_filters).permit(*crud_filters).to_h
    scope = crud_model.preload(crud_preload).where(filters)
    page = scope.order(order).page(params[:page]).per(per_page)
    pagination_headers(page)
    # JSON first: what `Accept: */*` and `.json` get; a browser's Accept gets the page.
    respond_to do |format|
      format.json { render json: page }
      format.html { render html: index_page(page) }
    end
  end

  def show
    render json: find_record
  end

  def create
    record = crud_model.new(resource_params)
    if record.save
      render json: record, status: :created, location: record
    else
      render json: record.errors, status: 422
    end
  end

  def update
    record = find_record
    if record.update(resource_params)
      render json: record
    else
      render json: record.errors, status: 422
    end
  end

  def destroy
    find_record.destroy!
    head :no_content
  end

  private

  def find_record
    crud_model.preload(crud_preload).find(params[:id])
  end

  def resource_params
    params.require(crud_model.model_name.param_key).permit(*crud_permit)
  end

  def sort_order
    fields = params[:sort].to_s.split(",").map(&:strip).reject(&:empty?)
    unknown = fields.map { |f| f.delete_prefix("-") } - crud_model.column_names
    if unknown.any?
      render json: { error: "unknown sort field: #{unknown.join(', ')}" }, status: 400
      return
    end
    order = fields.to_h { |f| [f.delete_prefix("-"), f.start_with?("-") ? :desc : :asc] }
    order.key?("id") ? order : order.merge("id" => :asc)
  end

  def per_page
    number = Integer(params[:per_page].to_s, exception: false)
    number if number&.positive?
  end

  def index_page(page)
    title = crud_model.model_name.human.pluralize
    label = (%w[name title] & crud_model.column_names).first || "id"
    items = page.map do |record|
      text = ERB::Util.html_escape(record.public_send(label))
      %(<li><a href="#{request.path}/#{record.id}">#{text}</a></li>)
    end
    <<~HTML.html_safe
      <!doctype html>
      <html><head><title>#{title}</title></head>
      <body><h1>#{title}</h1><ul>#{items.join}</ul><p><a href="/">Home</a></p></body></html>
    HTML
  end

  def pagination_headers(page)
    response.headers["X-Total-Count"] = page.total_count.to_s
    pages = { first: 1, prev: page.prev_page, next: page.next_page,
              last: [page.total_pages, 1].max }
    links = pages.compact.map { |rel, n| %(<#{page_url(n, page.limit_value)}>; rel="#{rel}") }
    response.headers["Link"] = links.join(", ")
  end

  def page_url(number, size)
    query = request.query_parameters.merge("page" => number, "per_page" => size)
    "#{request.base_url}#{request.path}?#{query.to_query}"
  end
end
